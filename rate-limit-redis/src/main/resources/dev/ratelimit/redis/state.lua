-- Reading and writing one key's state, shared by the drivers below.
--
-- A key holds one string: the fingerprint of the limit that wrote it, then that kind's numbers
-- (%.17g for fractions). A kind's load(L, value) returns the fingerprint and the state. A value
-- written under another limit (the same name bound to a different limit) reads as a fresh key,
-- so binding a name to another limit starts from fresh state.

-- now, in epoch ms: the caller's (a test clock) or Redis TIME, read once per script call, so
-- that application nodes with skewed clocks still agree.
local function read_now(given)
  if given ~= '' then
    return tonumber(given)
  end
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
end

-- The limit whose arguments start at ARGV[at] (kind, fingerprint, ARG_PARAMETERS parameters,
-- then the limit it replaced: fingerprint or '-', ARG_PARAMETERS parameters): its kind's limit
-- table, with the previous one as L.previous (and L.previous_fingerprint), and its fingerprint.
local function read_limit(at)
  local kind = KINDS[ARGV[at]]
  if kind == nil then
    error('unknown kind of limit ' .. tostring(ARGV[at]))
  end
  local L = kind(unpack(ARGV, at + 2, at + 1 + ARG_PARAMETERS))
  local previous = ARGV[at + 2 + ARG_PARAMETERS]
  if previous ~= '-' then
    L.previous = kind(unpack(ARGV, at + 3 + ARG_PARAMETERS, at + 2 + 2 * ARG_PARAMETERS))
    L.previous_fingerprint = previous
  end
  return L, ARGV[at + 1]
end

-- The key's state, or nil when it is fresh (missing, expired, or written under another limit).
-- A state written under the limit this one replaced is carried over (DESIGN.md §2.7).
local function load_state(key, fingerprint, limit, now)
  local value = redis.call('GET', key)
  if not value then
    return nil
  end
  local written_by, state = limit:load(value)
  if written_by == fingerprint then
    return state
  end
  if limit.previous ~= nil and written_by == limit.previous_fingerprint then
    return limit:carry(state, now)
  end
  return nil
end

-- Writes the state with PEXPIRE at the moment it becomes fresh (ttl ms from now: the resetAfter
-- of the state), so idle keys cost nothing and expiry never changes a decision; a state that is
-- fresh already is deleted instead. With keep (time comes from the caller's clock, which may go
-- back), keys never expire: a fresh state could still matter at an earlier time.
local function save_state(key, fingerprint, limit, state, ttl, keep)
  if state == nil then
    redis.call('DEL', key)
    return
  end
  local value = fingerprint .. ' ' .. limit:encode(state)
  if keep then
    redis.call('SET', key, value)
    return
  end
  if ttl <= 0 then
    redis.call('DEL', key)
  elseif ttl < 1e14 then
    redis.call('SET', key, value, 'PX', ttl) -- a whole number below 1e14 reads back exactly
  else
    redis.call('SET', key, value) -- fresh again in more than 3,000 years
  end
end

-- A wait bound from Java: -1 stands for no bound.
local function read_wait(text)
  local wait = tonumber(text)
  if wait < 0 then
    return INF
  end
  return wait
end

-- A decision as one string for the reply: allowed (1 or 0), remaining (%.17g, so that it reads
-- back exactly), retryAfter and resetAfter (whole ms).
local function reply_of(d)
  return string.format('%d %.17g %d %d', d[1], d[2], d[3], d[4])
end
