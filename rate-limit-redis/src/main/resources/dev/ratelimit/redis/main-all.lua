-- All or nothing over several keys in one slot (DESIGN.md §2 limitAll): every charge is a
-- limit decided in order at one instant, each seeing what the ones before it took; at the first
-- denial nothing is written and the other charges are checks on the untouched states.
--
-- KEYS[i]  the key of charge i
-- ARGV     as dev.ratelimit.redis.ScriptArguments lays it out (the ARG_ constants): now and
--          keep, then from ARG_ALL_FIRST, ARG_ALL_STRIDE apart, per charge: its limit (one
--          argument: kind, fingerprint, ARG_PARAMETERS parameters, ...), its key's window offset
--          ('-': the limit's) and its count. Charges may share a limit table (one limit on two
--          keys), so each use sets the charge's offset first (limit_of).
local now = read_now(ARGV[ARG_NOW])
local keep = ARGV[ARG_KEEP] == '1'
local n = #KEYS
local limits, fingerprints, offsets, counts = {}, {}, {}, {}
local original, working, owner = {}, {}, {}

-- charge i's limit, at its key's offset
local function limit_of(i)
  limits[i].offset = offsets[i]
  return limits[i]
end

for i = 1, n do
  local at = ARG_ALL_FIRST + ARG_ALL_STRIDE * (i - 1)
  limits[i], fingerprints[i] = read_limit(ARGV[at])
  offsets[i] = tonumber(ARGV[at + 1]) or limits[i].offset
  counts[i] = tonumber(ARGV[at + 2])
  local key = KEYS[i]
  if owner[key] == nil then
    owner[key] = i
    original[key] = load_state(key, fingerprints[i], limit_of(i), now)
    working[key] = original[key]
  end
end

local decisions = {}
local denied = nil
for i = 1, n do
  local key = KEYS[i]
  local next_state, d, wrote = limit_of(i):apply(working[key], 'l', counts[i], 0, now)
  decisions[i] = d
  if d[1] == 0 then
    denied = i
    break
  end
  if wrote then
    working[key] = next_state
  end
end

if denied then
  for i = 1, n do
    if i ~= denied then
      local _, d = limit_of(i):apply(original[KEYS[i]], 'c', counts[i], 0, now)
      decisions[i] = d
    end
  end
else
  for key, i in pairs(owner) do
    if working[key] ~= original[key] then
      local limit = limit_of(i)
      save_state(key, fingerprints[i], limit, working[key], limit:until_fresh(working[key], now), keep)
    end
  end
end
local out, m = {}, 0
for i = 1, n do
  m = reply_into(out, m, decisions[i])
end
return reply_of(out, m)
