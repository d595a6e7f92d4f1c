-- Requests of one limit on one or more keys of one slot, decided in order key by key, each key's
-- state read once and written once. Concurrent requests share a call: on a hot key they are
-- decided one after the other, exactly as if they had come one by one; on many keys each is
-- decided on its own key.
--
-- KEYS       prefix:{name:key} of each key, in the order of their requests below
-- ARGV       as dev.ratelimit.redis.ScriptArguments lays it out (the ARG_ constants): now and
--            keep, the limit at ARG_BATCH_LIMIT (one argument: kind, fingerprint, ARG_PARAMETERS
--            parameters, ...), then from ARG_BATCH_REQUESTS one entry per key: the requests on
--            KEYS[k]: its window offset ('-' for the limit's), then per request, in order: op ('l'
--            limit, 'c' check, 'r' reserve, 'f' refund, 'x' reset, 't' lease take), count, and
--            maxWait (ms, -1: no bound; for 't' the lease's size), all separated by spaces
-- 't' count size (token bucket and GCRA with lease=, DESIGN.md §4.3.3): takes count + size
--            units if the key holds them: the request is admitted and the node holds size units
--            more (the reply's first field is 2); otherwise the request alone, exactly as 'l'
--            count, and no lease: the last units of a key are never parked in one node's lease.
--            Leases go back with 'f', never above the capacity.
-- Reply: one string, 25 bytes per request, in the same order (reply_into in state.lua).
local now = read_now(ARGV[ARG_NOW])
local keep = ARGV[ARG_KEEP] == '1'
local limit, fingerprint = read_limit(ARGV[ARG_BATCH_LIMIT])
local default_offset = limit.offset

local out, n = {}, 0
for k = 1, #KEYS do
  local key = KEYS[k]
  local requests = read_requests(ARGV[ARG_BATCH_REQUESTS + k - 1])
  limit.offset = requests[1] or default_offset

  local state = load_state(key, fingerprint, limit, now)
  local changed = false
  local d
  for r = 2, #requests, 3 do
    local op, count, bound = requests[r], requests[r + 1], requests[r + 2]
    if op == 'l' or op == 'c' or op == 'r' then -- the common ones first: each test is a VM instruction
      local next_state, wrote
      next_state, d, wrote = limit:apply(state, op, count, bound, now)
      if wrote then
        state, changed = next_state, true
      end
    elseif op == 'x' then
      state, changed, d = nil, true, decision(1, 0, 0, 0)
    elseif op == 'f' then
      local before = state
      state, d = limit:refund(state, count, now)
      changed = changed or before ~= nil or state ~= nil
    elseif op == 't' then
      local next_state, wrote
      next_state, d, wrote = limit:apply(state, 'l', count + bound, 0, now)
      if d[1] == 1 then
        d[1] = 2
      else
        next_state, d, wrote = limit:apply(state, 'l', count, 0, now)
      end
      if wrote then
        state, changed = next_state, true
      end
    else
      error('unknown operation ' .. tostring(op))
    end
    n = reply_into(out, n, d)
  end
  if changed then
    -- every decision's resetAfter is the time until its key's state afterwards is fresh: the
    -- last one's is when the state written becomes fresh
    save_state(key, fingerprint, limit, state, d[4], keep)
  end
end
return reply_of(out, n)
