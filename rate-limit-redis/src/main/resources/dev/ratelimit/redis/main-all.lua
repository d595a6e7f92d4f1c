-- All or nothing over several keys in one slot (DESIGN.md §2 limitAll): every charge is a
-- limit decided in order at one instant, each seeing what the ones before it took; at the first
-- denial nothing is written and the other charges are checks on the untouched states.
--
-- KEYS[i]  the key of charge i
-- ARGV[1]  now in epoch ms, or '' for Redis TIME
-- ARGV[2]  '1' to keep every key (the clock is the caller's), else '0'
-- ARGV[3 + 8(i−1) …] per charge: kind, fingerprint, five parameters, count
local now = read_now(ARGV[1])
local keep = ARGV[2] == '1'
local n = #KEYS
local limits, fingerprints, counts = {}, {}, {}
local original, working, owner = {}, {}, {}
for i = 1, n do
  local at = 3 + 8 * (i - 1)
  local kind = KINDS[ARGV[at]]
  if kind == nil then
    error('unknown kind of limit ' .. tostring(ARGV[at]))
  end
  limits[i] = kind(ARGV[at + 2], ARGV[at + 3], ARGV[at + 4], ARGV[at + 5], ARGV[at + 6])
  fingerprints[i] = ARGV[at + 1]
  counts[i] = tonumber(ARGV[at + 7])
  local key = KEYS[i]
  if owner[key] == nil then
    owner[key] = i
    original[key] = load_state(key, fingerprints[i], limits[i])
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
  out[i] = reply_of(decisions[i])
end
return out
