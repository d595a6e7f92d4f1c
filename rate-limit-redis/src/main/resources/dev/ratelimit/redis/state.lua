-- Reading and writing one key's state, shared by the drivers below.
--
-- A key holds one string: the fingerprint of the limit that wrote it (FINGERPRINT_LENGTH hex
-- digits), then that kind's numbers: packed doubles after '=' (word.lua), or text after ' '
-- (%.17g for fractions; the sliding kinds and quotas). A kind's load(L, value) returns the fingerprint and the state. A value
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

-- Limits built from their arguments, by those arguments: as a Redis Functions library this code
-- runs once and keeps them from call to call (run by EVALSHA, it starts with an empty table each
-- time). Each entry is the limit and its own offset, which main-batch sets per key. At most
-- LIMITS_MAX, as the arguments come from clients.
local LIMITS, LIMITS_MAX, limits_kept = {}, 1000, 0

-- The limit whose arguments start at ARGV[at] (kind, fingerprint, ARG_PARAMETERS parameters,
-- then the limit it replaced: fingerprint or '-', ARG_PARAMETERS parameters): its kind's limit
-- table, with the previous one as L.previous (and L.previous_fingerprint), and its fingerprint.
local function read_limit(at)
  -- the previous limit's arguments are part of the id: the same limit may replace several
  local id = table.concat(ARGV, ' ', at, at + 2 + 2 * ARG_PARAMETERS)
  local kept = LIMITS[id]
  if kept ~= nil then
    kept[1].offset = kept[2]
    return kept[1], ARGV[at + 1]
  end
  local kind = KINDS[ARGV[at]]
  if kind == nil then
    error('unknown kind of limit ' .. tostring(ARGV[at]))
  end
  local limit = kind(unpack(ARGV, at + 2, at + 1 + ARG_PARAMETERS))
  local previous = ARGV[at + 2 + ARG_PARAMETERS]
  if previous ~= '-' then
    limit.previous = kind(unpack(ARGV, at + 3 + ARG_PARAMETERS, at + 2 + 2 * ARG_PARAMETERS))
    limit.previous_fingerprint = previous
  end
  if limits_kept == LIMITS_MAX then
    LIMITS, limits_kept = {}, 0
  end
  LIMITS[id], limits_kept = { limit, limit.offset }, limits_kept + 1
  return limit, ARGV[at + 1]
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
  local value = fingerprint .. (limit.value_mark or ' ') .. limit:encode(state)
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

-- A decision appended to the reply as five numbers, which Redis replies as integers without
-- formatting them (a %.17g string cost about as much as a command): allowed (1 or 0), remaining
-- as mantissa and exponent (math.frexp: remaining = mantissa * 2^(exponent - 53), exact for
-- every finite double; mantissa 0 with exponent 1 is -0), retryAfter and resetAfter (whole ms).
-- dev.ratelimit.redis.Args.decision reads them back.
local function reply_into(out, d)
  local remaining = d[2]
  if remaining ~= remaining or remaining == INF or remaining == -INF then
    error('a decision with remaining units ' .. tostring(remaining))
  end
  local mantissa, exponent = math.frexp(remaining)
  if remaining == 0 and 1 / remaining < 0 then
    exponent = 1
  end
  local n = #out
  out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = d[1], mantissa * 2 ^ 53, exponent, d[3], d[4]
end
