-- All or nothing over several keys in one slot (DESIGN.md §2 limitAll): every charge is a
-- limit decided in order at one instant, each seeing what the ones before it took; at the first
-- denial nothing is written and the other charges are checks on the untouched states.
--
-- KEYS[i]  the key of charge i
-- ARGV     as dev.ratelimit.redis.ScriptArguments lays it out (the ARG_ constants): now and
--          keep, then from ARG_ALL_FIRST, ARG_ALL_STRIDE apart, per charge: its limit (kind,
--          fingerprint, ARG_PARAMETERS parameters) and its count
local now = read_now(ARGV[ARG_NOW])
local keep = ARGV[ARG_KEEP] == '1'
local n = #KEYS
local limits, fingerprints, counts = {}, {}, {}
local original, working, owner = {}, {}, {}
for i = 1, n do
  local at = ARG_ALL_FIRST + ARG_ALL_STRIDE * (i - 1)
  limits[i], fingerprints[i] = read_limit(at)
  counts[i] = tonumber(ARGV[at + ARG_LIMIT_SIZE])
  local key = KEYS[i]
  if owner[key] == nil then
    owner[key] = i
    original[key] = load_state(key, fingerprints[i], limits[i], now)
    working[key] = original[key]
  end
end

local decisions = {}
local denied = nil
for i = 1, n do
  local key = KEYS[i]
  local next_state, d, wrote = limits[i]:apply(working[key], 'l', counts[i], 0, now)
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
      local _, d = limits[i]:apply(original[KEYS[i]], 'c', counts[i], 0, now)
      decisions[i] = d
    end
  end
else
  for key, i in pairs(owner) do
    if working[key] ~= original[key] then
      save_state(key, fingerprints[i], limits[i], working[key], limits[i]:until_fresh(working[key], now), keep)
    end
  end
end
local out = {}
for i = 1, n do
  reply_into(out, decisions[i])
end
return out
