-- Requests of one limit on one or more keys of one slot, decided in order key by key, each key's
-- state read once and written once. Concurrent requests share a call: on a hot key they are
-- decided one after the other, exactly as if they had come one by one; on many keys each is
-- decided on its own key.
--
-- KEYS       prefix:{name:key} of each key, in the order of their requests below
-- ARGV[1]    now in epoch ms, or '' for Redis TIME
-- ARGV[2]    '1' to keep every key (the clock is the caller's and may go back), else '0'
-- ARGV[3]    the kind, ARGV[4] the limit's fingerprint, ARGV[5..9] its parameters
-- ARGV[9+k]  the requests on KEYS[k]: its window offset ('-' for ARGV[9]), then per request, in
--            order: op ('l' limit, 'c' check, 'r' reserve, 'f' refund, 'x' reset), count, and
--            maxWait (ms, -1: no bound), all separated by spaces
-- Reply: one string per request, in the same order (reply_of in state.lua).
local now = read_now(ARGV[1])
local keep = ARGV[2] == '1'
local kind = KINDS[ARGV[3]]
if kind == nil then
  error('unknown kind of limit ' .. tostring(ARGV[3]))
end
local fingerprint = ARGV[4]
local limit = kind(ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9])
local default_offset = limit.offset

local out = {}
for k = 1, #KEYS do
  local key = KEYS[k]
  local next_word = string.gmatch(ARGV[9 + k], '%S+')
  local offset = next_word()
  if offset == '-' then
    limit.offset = default_offset
  else
    limit.offset = tonumber(offset)
  end

  local state = load_state(key, fingerprint, limit)
  local changed = false
  local d
  for op in next_word do
    local count = tonumber(next_word())
    local max_wait = next_word()
    if op == 'x' then
      state, changed, d = nil, true, decision(1, 0, 0, 0)
    elseif op == 'f' then
      local before = state
      state, d = limit:refund(state, count, now)
      changed = changed or before ~= nil or state ~= nil
    elseif op == 'l' or op == 'c' or op == 'r' then
      local next_state, wrote
      next_state, d, wrote = limit:apply(state, op, count, read_wait(max_wait), now)
      if wrote then
        state, changed = next_state, true
      end
    else
      error('unknown operation ' .. tostring(op))
    end
    out[#out + 1] = reply_of(d)
  end
  if changed then
    -- every decision's resetAfter is the time until its key's state afterwards is fresh: the
    -- last one's is when the state written becomes fresh
    save_state(key, fingerprint, limit, state, d[4], keep)
  end
end
return out
