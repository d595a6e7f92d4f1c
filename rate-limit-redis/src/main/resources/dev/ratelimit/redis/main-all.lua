-- All or nothing over several keys in one slot (docs/design.md §2 limitAll): every charge is a
-- limit decided in order at one instant, each seeing what the ones before it took; at the first
-- denial nothing is written and the other charges are checks on the untouched states.
--
-- KEYS[i]  the key of charge i
-- ARGV     as dev.ratelimit.redis.ScriptArguments lays it out (the ARG_ constants): from
--          ARG_ALL_FIRST, ARG_ALL_STRIDE apart, per charge: its limit (one argument: kind,
--          fingerprint, ARG_PARAMETERS parameters, ...), its key's window offset ('-': the
--          limit's) and its count; then, only when the caller gives the time, the clock argument
--          (read_clock in state.lua). Charges may share a limit table (one limit on two keys), so
--          each use sets the charge's offset first (limit_of).
-- A key's state is kept here as one table of its up to three values (state.lua), whether the
-- key exists and the format version of a value this script does not read (nil for its own), so
-- that "changed" is a comparison of two tables. A charge on a key of another format version is
-- a denial that replies other_format: nothing is written, and the caller fails the whole call.
local n = #KEYS
local now, keep = read_clock(ARGV[ARG_ALL_FIRST + ARG_ALL_STRIDE * n])
local limits, heads, offsets, counts = {}, {}, {}, {}
local original, working, owner = {}, {}, {}

-- charge i's limit, at its key's offset
local function limit_of(i)
  limits[i].offset = offsets[i]
  return limits[i]
end

for i = 1, n do
  local at = ARG_ALL_FIRST + ARG_ALL_STRIDE * (i - 1)
  limits[i], heads[i] = read_limit(ARGV[at])
  offsets[i] = tonumber(ARGV[at + 1]) or limits[i].offset
  counts[i] = tonumber(ARGV[at + 2])
  local key = KEYS[i]
  if owner[key] == nil then
    owner[key] = i
    original[key] = { load_state(key, heads[i], limit_of(i), now) } -- s1, s2, s3, existed, format
    working[key] = original[key]
  end
end

-- the decision of charge i on a state, as the reply carries it, and whether it was admitted,
-- whether the state changed, and the state afterwards (one table)
local function decide(i, state, op)
  if state[5] ~= nil then
    return other_format(state[5]), false, false
  end
  local allowed, remaining, retry_after, reset_after, wrote, n1, n2, n3 =
      limit_of(i):apply(state[1], state[2], state[3], op, counts[i], 0, now)
  return reply_bytes(allowed, remaining, retry_after, reset_after), allowed ~= 0, wrote and { n1, n2, n3, state[4] }
end

local decisions = {}
local denied = nil
for i = 1, n do
  local key = KEYS[i]
  local bytes, admitted, next_state = decide(i, working[key], 'l')
  decisions[i] = bytes
  if not admitted then
    denied = i
    break
  end
  if next_state then
    working[key] = next_state
  end
end

if denied then
  for i = 1, n do
    if i ~= denied then
      decisions[i] = decide(i, original[KEYS[i]], 'c')
    end
  end
else
  for key, i in pairs(owner) do
    local state = working[key]
    if state ~= original[key] then
      local limit = limit_of(i)
      save_state(key, heads[i], limit, state[1], state[2], state[3],
          limit:until_fresh(state[1], state[2], state[3], now), keep, state[4])
    end
  end
end
return table.concat(decisions, '', 1, n)
