-- Lease takes of one limit (token bucket or GCRA) on one or more keys of one slot (DESIGN.md
-- §4.3.3): a node that cannot admit a request from the units it holds asks for the
-- request's count plus a whole lease, in one call. Laid out as main-batch.lua (the same ARGV
-- layout, the same request lists: offset, then op count size per request), with one op:
--
--   't' count size   take count + size units if the key holds them: the request is admitted and
--                    the node holds size units more (the reply's first field is 2); otherwise
--                    the request alone, exactly as main-batch decides 'l' count (1 admitted, 0
--                    denied, with the exact wait), and no lease: the last units of a key are
--                    never parked in one node's lease.
--
-- Leases are given back with main-batch's 'f' (refund), never above the capacity.
-- Reply: five integers per request (reply_into in state.lua).
local now = read_now(ARGV[ARG_NOW])
local keep = ARGV[ARG_KEEP] == '1'
local limit, fingerprint = read_limit(ARG_BATCH_LIMIT)
local default_offset = limit.offset

local out = {}
for k = 1, #KEYS do
  local key = KEYS[k]
  local next_word = string.gmatch(ARGV[ARG_BATCH_REQUESTS + k - 1], '%S+')
  local offset = next_word()
  if offset == '-' then
    limit.offset = default_offset
  else
    limit.offset = tonumber(offset)
  end

  local state = load_state(key, fingerprint, limit, now)
  local changed = false
  local d
  for op in next_word do
    local count = tonumber(next_word())
    local size = tonumber(next_word())
    if op ~= 't' then
      error('unknown lease operation ' .. tostring(op))
    end
    local next_state, wrote
    next_state, d, wrote = limit:apply(state, 'l', count + size, 0, now)
    if d[1] == 1 then
      d[1] = 2
    else
      next_state, d, wrote = limit:apply(state, 'l', count, 0, now)
    end
    if wrote then
      state, changed = next_state, true
    end
    reply_into(out, d)
  end
  if changed then
    save_state(key, fingerprint, limit, state, d[4], keep)
  end
end
return out
