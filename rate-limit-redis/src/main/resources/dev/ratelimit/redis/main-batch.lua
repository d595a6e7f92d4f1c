-- Requests of one limit on one or more keys of one slot, decided in order key by key, each key's
-- state read once and written once. Concurrent requests share a call: on a hot key they are
-- decided one after the other, exactly as if they had come one by one; on many keys each is
-- decided on its own key.
--
-- KEYS       prefix:{name:key} of each key, in the order of their requests below
-- ARGV       as dev.ratelimit.redis.ScriptArguments lays it out (the ARG_ constants): the limit
--            at ARG_BATCH_LIMIT (one argument: kind, fingerprint, ARG_PARAMETERS parameters,
--            ...), then from ARG_BATCH_REQUESTS one entry per key: the requests on KEYS[k]: its
--            window offset ('-' for the limit's), then per request, in order: op ('l' limit, 'c'
--            check, 'r' reserve, 'd' take into debt, 'f' refund, 'x' reset, 't' lease take),
--            count, and maxWait (ms, -1: no bound; for 't' the lease's size), all separated by
--            spaces; then, only when the caller gives the time, the clock argument (read_clock in
--            state.lua)
-- 't' count size (token bucket and GCRA with lease=, docs/design.md §4.3.3): takes count + size
--            units if the key holds them: the request is admitted and the node holds size units
--            more (the reply's first field is 2); otherwise the request alone, exactly as 'l'
--            count, and no lease: the last units of a key are never parked in one node's lease.
--            Leases go back with 'f', never above the capacity.
-- Reply: one string, 25 bytes per request, in the same order (reply_bytes in state.lua); for
--            each request on a key holding a value of another format version, other_format.
local keys = #KEYS
local now, keep = read_clock(ARGV[ARG_BATCH_REQUESTS + keys])
local limit, head = read_limit(ARGV[ARG_BATCH_LIMIT])
local apply, default_offset = limit.apply, limit.offset

-- the reply: the first decision's bytes, and a table only once there are more (one decision is
-- the whole reply of a call without coalescing)
local first, out, n = nil, nil, 0
for k = 1, keys do
  local key = KEYS[k]
  local requests = read_requests(ARGV[ARG_BATCH_REQUESTS + k - 1])
  limit.offset = requests[1] or default_offset

  local s1, s2, s3, existed, format = load_state(key, head, limit, now)
  local changed = false
  local allowed, remaining, retry_after, reset_after
  for r = 2, #requests, 3 do
    local op, count, bound = requests[r], requests[r + 1], requests[r + 2]
    local bytes
    if format ~= nil then
      bytes = other_format(format) -- a value of another format version: not decided, not written
    elseif op == 'l' or op == 'c' or op == 'r' or op == 'd' then -- the common ones first: each test is a VM instruction
      local wrote, n1, n2, n3
      allowed, remaining, retry_after, reset_after, wrote, n1, n2, n3 = apply(limit, s1, s2, s3, op, count, bound, now)
      if wrote then
        s1, s2, s3, changed = n1, n2, n3, true
      end
    elseif op == 'x' then
      s1, s2, s3, changed = nil, nil, nil, true
      allowed, remaining, retry_after, reset_after = 1, 0, 0, 0
    elseif op == 'f' then
      local before = s1
      allowed, remaining, retry_after, reset_after, s1, s2, s3 = limit:refund(s1, s2, s3, count, now)
      changed = changed or before ~= nil or s1 ~= nil
    elseif op == 't' then
      local wrote, n1, n2, n3
      allowed, remaining, retry_after, reset_after, wrote, n1, n2, n3 = apply(limit, s1, s2, s3, 'l', count + bound, 0, now)
      if allowed == 1 then
        allowed = 2
      else
        allowed, remaining, retry_after, reset_after, wrote, n1, n2, n3 = apply(limit, s1, s2, s3, 'l', count, 0, now)
      end
      if wrote then
        s1, s2, s3, changed = n1, n2, n3, true
      end
    else
      error('unknown operation ' .. tostring(op))
    end
    bytes = bytes or reply_bytes(allowed, remaining, retry_after, reset_after)
    n = n + 1
    if n == 1 then
      first = bytes
    elseif n == 2 then
      out = { first, bytes }
    else
      out[n] = bytes
    end
  end
  if changed then
    -- every decision's resetAfter is the time until its key's state afterwards is fresh: the
    -- last one's is when the state written becomes fresh
    save_state(key, head, limit, s1, s2, s3, reset_after, keep, existed)
  end
end
if n == 1 then
  return first
end
return table.concat(out, '', 1, n)
