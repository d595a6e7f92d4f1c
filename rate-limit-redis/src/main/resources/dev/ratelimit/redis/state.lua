-- Reading and writing one key's state, shared by the drivers below.
--
-- A state is up to three values, passed and returned as they are (never in a table: a table made
-- per decision and collected cost Redis more than the decision's arithmetic, docs/benchmarks.md
-- §4): a word kind's word, stamp and base (word.lua), or an object kind's one table (object.lua);
-- its first value nil for a fresh key. A kind's limit L has apply(L, s1, s2, s3, op, count,
-- max_wait, now) (the decision: allowed, remaining, retryAfter, resetAfter; whether the state
-- changed; the state afterwards), refund(L, s1, s2, s3, count, now) (the decision, the state
-- afterwards), until_fresh(L, s1, s2, s3, now), load and value below, and carry(L, P, s1, s2,
-- s3, now) for kinds that convert.
--
-- A key holds one string: its head, the format version (FORMAT_HEAD: the version, then ':') and
-- the fingerprint of the limit that wrote it (HEAD_LENGTH bytes in all), then that kind's
-- numbers: packed doubles after '=' (word.lua), or text after ' ' (%.17g for fractions; the
-- sliding kinds and quotas). A kind's load(L, value, signed) returns the state of a value of
-- this format and, when signed and the writer converts, what names it (its writer signature:
-- word.lua); value(L, head, s1, s2, s3) is the string to store. A value written under another
-- limit of the name reads as a fresh key, unless both convert and are of one kind (token bucket,
-- GCRA, fixed window without random phase: another plan, a change at runtime, a node not yet
-- changed, a restart with other numbers): then it is carried over by the rule of
-- docs/design.md §2.7. A value of another format version is never read (docs/design.md §4.3).

-- now, in epoch ms, and keep: from the optional last argument (ScriptArguments: the caller's
-- time, a test clock, and whether keys never expire), else Redis TIME, read once per script
-- call so that application nodes with skewed clocks still agree, and keys expire.
local function read_clock(given)
  if given == nil then
    local time = redis.call('TIME') -- two decimal strings, which arithmetic reads as numbers
    return time[1] * 1000 + floor(time[2] / 1000), false
  end
  local now, keep = string.match(given, '^(%-?%d*) ([01])$')
  if keep == nil then
    error('not a clock argument: ' .. tostring(given))
  end
  if now == '' then
    return read_clock(nil), keep == '1'
  end
  return tonumber(now), keep == '1'
end

-- Limits built from their argument, by that argument's text: as a Redis Functions library this
-- code runs once and keeps them from call to call (run by EVALSHA, it starts with an empty table
-- each time). Each entry is the limit, its own offset (which the drivers set per key) and the
-- head of its values (format version and fingerprint). At most LIMITS_MAX, as the arguments come
-- from clients.
local LIMITS, LIMITS_MAX, limits_kept = {}, 1000, 0

-- What names a converting limit in the values it writes: its ARG_PARAMETERS parameters as
-- little-endian doubles (exact), then its kind. Built once per limit (read_limit).
local function signature_of(kind, ...)
  local numbers = { ... }
  for i = 1, ARG_PARAMETERS do
    numbers[i] = tonumber(numbers[i])
  end
  return struct.pack('<ddddd', unpack(numbers, 1, ARG_PARAMETERS)) .. kind
end

-- Writers rebuilt from their signatures, kept as LIMITS are (values come from clients too).
local WRITERS, writers_kept = {}, 0

-- The limit a signature names, when it is of L's kind (else nil: a state L can't convert).
local function writer_of(signature, L)
  local kind = string.sub(signature, 8 * ARG_PARAMETERS + 1)
  if kind ~= L.kind_name then
    return nil
  end
  local writer = WRITERS[signature]
  if writer == nil then
    writer = KINDS[kind](struct.unpack('<ddddd', signature))
    if writers_kept == LIMITS_MAX then
      WRITERS, writers_kept = {}, 0
    end
    WRITERS[signature], writers_kept = writer, writers_kept + 1
  end
  return writer
end

-- The limit an argument describes (ScriptArguments.limit: kind, fingerprint, ARG_PARAMETERS
-- parameters, then '1' when it converts): its kind's limit table, with L.signature when it
-- converts, and the head of the values it writes (the format version and its fingerprint). The
-- text is the same on every call of the limit, so it is the key it is kept under: one lookup per
-- call.
local function read_limit(text)
  local kept = LIMITS[text]
  if kept ~= nil then
    kept[1].offset = kept[2]
    return kept[1], kept[3]
  end
  local w = words(text)
  local kind = KINDS[w[1]]
  if kind == nil or #w ~= 3 + ARG_PARAMETERS then
    error('not a limit: ' .. tostring(text))
  end
  local limit = kind(unpack(w, 3, 2 + ARG_PARAMETERS))
  limit.kind_name = w[1]
  if w[3 + ARG_PARAMETERS] == '1' then
    limit.signature = signature_of(w[1], unpack(w, 3, 2 + ARG_PARAMETERS))
  end
  if limits_kept == LIMITS_MAX then
    LIMITS, limits_kept = {}, 0
  end
  limit.suffix = limit.signature or '' -- what word_value appends to every value it writes
  local head = FORMAT_HEAD .. w[2]
  LIMITS[text], limits_kept = { limit, limit.offset, head }, limits_kept + 1
  return limit, head
end

-- A bound on a wait from Java: -1 stands for no bound.
local function read_wait(text)
  local wait = tonumber(text)
  if wait < 0 then
    return INF
  end
  return wait
end

-- The requests on one key as main-batch reads them (its offset, then op count maxWait per
-- request), parsed: { offset (nil: the limit's), op, count, bound, op, count, bound, ... }, the
-- bound a number (maxWait, INF for none; for 't' the lease's size). Kept by their text as
-- limits are: a key's requests are mostly the same few texts ('- l 1 0'), and parsing one cost
-- about as much as the decision's arithmetic.
local REQUESTS, requests_kept = {}, 0

local function read_requests(text)
  local parsed = REQUESTS[text]
  if parsed ~= nil then
    return parsed
  end
  local w = words(text)
  if #w % 3 ~= 1 then
    error('not a list of requests: ' .. tostring(text))
  end
  parsed = { tonumber(w[1]) }
  if w[1] == '-' then
    parsed[1] = false
  end
  for i = 2, #w, 3 do
    local op = w[i]
    parsed[i], parsed[i + 1] = op, tonumber(w[i + 1])
    if op == 't' then
      parsed[i + 2] = tonumber(w[i + 2])
    else
      parsed[i + 2] = read_wait(w[i + 2])
    end
  end
  if requests_kept == LIMITS_MAX then
    REQUESTS, requests_kept = {}, 0
  end
  REQUESTS[text], requests_kept = parsed, requests_kept + 1
  return parsed
end

-- The key's state (its first value nil when it is fresh: missing, expired, written under
-- another limit, or no value these scripts write), then whether the key exists (save_state: only
-- then can it keep its expiry), then, for a value of another format version, that version: the
-- key's state is then unknown, and its requests are not decided (other_format). A state written
-- under another limit of the kind, when both convert, is carried over (docs/design.md §2.7).
local function load_state(key, head, limit, now)
  local value = redis.call('GET', key)
  if not value then
    return nil, nil, nil, false
  end
  if sub(value, 1, HEAD_LENGTH) == head then
    -- the common case: one comparison checks the format and the writer, and the signature is
    -- not even read
    local s1, s2, s3 = limit:load(value)
    return s1, s2, s3, true
  end
  if sub(value, 1, #FORMAT_HEAD) ~= FORMAT_HEAD then
    -- a format version is 1 to 9 digits, then ':'
    local version = string.match(value, '^(%d%d?%d?%d?%d?%d?%d?%d?%d?):')
    if version ~= nil then
      return nil, nil, nil, true, tonumber(version)
    end
    return nil, nil, nil, true -- no value these scripts write: a fresh key, replaced by the next write
  end
  if limit.signature ~= nil then
    local s1, s2, s3, signature = limit:load(value, true)
    if signature ~= nil then
      local writer = writer_of(signature, limit)
      if writer ~= nil then
        s1, s2, s3 = limit:carry(writer, s1, s2, s3, now)
        return s1, s2, s3, true
      end
    end
  end
  return nil, nil, nil, true
end

-- How much longer than its state needs an existing key is kept when its expiry is moved: a
-- second, or an eighth of the time until it is fresh when that is longer. A key kept past the
-- moment its state is fresh changes no decision (a fresh state and a missing key read the same);
-- it saves moving the expiry on nearly every write of a busy key, which cost Redis as much as the
-- rest of the SET (docs/benchmarks.md §4).
local EXPIRY_SLACK_MIN = 1000

-- The text of a PX argument, a whole number of ms below 1e14 (so %d writes it exactly). Redis
-- 7.0 formats a number argument with %.17g, which cost a third as much as the rest of the SET;
-- new keys of a limit that take the same units (one each, the common case on many keys) have
-- the same resetAfter, so texts are kept by their number, at most LIMITS_MAX of them.
local PX_TEXTS, px_texts_kept = {}, 0

local function px_text(px)
  local text = PX_TEXTS[px]
  if text == nil then
    text = string.format('%d', px)
    if px_texts_kept == LIMITS_MAX then
      PX_TEXTS, px_texts_kept = {}, 0
    end
    PX_TEXTS[px], px_texts_kept = text, px_texts_kept + 1
  end
  return text
end

-- Writes the state so that the key expires no earlier than the moment it becomes fresh (ttl ms
-- from now: the resetAfter of the state), so idle keys cost nothing and expiry never changes a
-- decision; a state that is fresh already is deleted instead. A key that existed keeps its expiry
-- (PTTL, SET ... KEEPTTL) when that is still late enough; otherwise it is set a slack later
-- (EXPIRY_SLACK_MIN). A new key expires exactly when its state is fresh. With keep (time comes
-- from the caller's clock, which may go back), keys never expire: a fresh state could still
-- matter at an earlier time.
local function save_state(key, head, limit, s1, s2, s3, ttl, keep, existed)
  if s1 == nil then
    redis.call('DEL', key)
    return
  end
  local value = limit:value(head, s1, s2, s3)
  if keep then
    redis.call('SET', key, value)
    return
  end
  if ttl <= 0 then
    redis.call('DEL', key)
    return
  end
  local px = ttl -- a new key expires exactly when its state is fresh
  if existed then
    -- -1 (no expiry) is never late enough; KEEPTTL is Redis 6.0's: before it, an error, and PX
    if redis.call('PTTL', key) >= ttl and not redis.pcall('SET', key, value, 'KEEPTTL').err then
      return
    end
    px = ttl + max(EXPIRY_SLACK_MIN, floor(ttl / 8))
  end
  if px < 1e14 then
    redis.call('SET', key, value, 'PX', px_text(px))
  else
    redis.call('SET', key, value) -- fresh again in more than 3,000 years
  end
end

-- One decision as the reply carries it: allowed (0, 1, 2 for a lease taken, or OTHER_FORMAT) as one byte, then
-- remaining, retryAfter and resetAfter (whole ms) as little-endian doubles, 25 bytes
-- (struct.pack '<Bddd': exact for every finite double, and the reply is one string, where a
-- table of integers cost Redis about 5,000 instructions to convert and each integer 500 more;
-- docs/benchmarks.md §4). dev.ratelimit.redis.Args reads it back.
local function reply_bytes(allowed, remaining, retry_after, reset_after)
  if not (remaining - remaining == 0) then -- NaN or an infinity: x - x is NaN
    error('a decision with remaining units ' .. tostring(remaining))
  end
  return pack('<Bddd', allowed, remaining, retry_after, reset_after)
end

-- The reply to a request on a key holding a value of another format version, not decided:
-- OTHER_FORMAT (dev.ratelimit.redis.Args), the key's version, this script's; the request fails
-- (dev.ratelimit.redis.ValueFormat.refused) and the key is left as it is.
local OTHER_FORMAT = 3

local function other_format(version)
  return reply_bytes(OTHER_FORMAT, version, FORMAT_VERSION, 0)
end
