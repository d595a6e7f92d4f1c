-- sliding-log (docs/design.md §2): every admitted request is an entry (time, units) that counts
-- while time > now − period; admitted iff Σ live + count ≤ capacity (= rate). Entries with the
-- same time are merged. Time is read as max(now, the latest time stored), as
-- SlidingLogAlgorithm does. Exact: a wait is when enough of the oldest entries have left.
--
-- State: { time, times, units }, oldest first. Stored value: time n t1 u1 … tn un.
local sliding_log = {}

-- index of the first entry still counting at t
local function sl_first_live(L, state, t)
  local i = 1
  local n = #state.times
  while i <= n and state.times[i] <= t - L.period do
    i = i + 1
  end
  return i
end

function sliding_log.level(L, state, now)
  if state == nil then
    return L.capacity
  end
  local t = max(now, state.time)
  local used = 0
  for i = sl_first_live(L, state, t), #state.units do
    used = used + state.units[i]
  end
  return L.capacity - used
end

-- the live entries, with count added to the entry at t (merged with one at the same time)
function sliding_log.consume(L, state, now, count)
  if state == nil then
    return { time = now, times = { now }, units = { count } }
  end
  local t = max(now, state.time)
  local times, units = {}, {}
  for i = sl_first_live(L, state, t), #state.times do
    times[#times + 1] = state.times[i]
    units[#units + 1] = state.units[i]
  end
  local size = #times
  if size > 0 and times[size] == t then
    units[size] = units[size] + count
  else
    times[size + 1] = t
    units[size + 1] = 0 + count
  end
  return { time = t, times = times, units = units }
end

-- units go back newest entry first; nil once nothing is left
function sliding_log.refund(L, state, now, count)
  local units = {}
  for i = 1, #state.units do
    units[i] = state.units[i]
  end
  local size = #units
  local left = count
  while size > 0 and left > 0 do
    local back = min(left, units[size])
    units[size] = units[size] - back
    left = left - back
    if units[size] <= 0 then
      size = size - 1
    end
  end
  if size == 0 then
    return nil
  end
  local times, kept = {}, {}
  for i = 1, size do
    times[i] = state.times[i]
    kept[i] = units[i]
  end
  return { time = state.time, times = times, units = kept }
end

-- walk the live entries, oldest first, until enough units have left
function sliding_log.estimate_wait(L, state, now, units)
  local t = max(now, state.time)
  local level = sliding_log.level(L, state, now)
  for i = sl_first_live(L, state, t), #state.times do
    level = level + state.units[i]
    if reaches(level, units, L.tol) then
      return state.times[i] + L.period - now
    end
  end
  return state.times[#state.times] + L.period - now
end

function sliding_log.load(L, value)
  local fields = words(value)
  local times, units = {}, {}
  for i = 1, tonumber(fields[3]) do
    times[i] = tonumber(fields[2 + 2 * i])
    units[i] = tonumber(fields[3 + 2 * i])
  end
  return { time = tonumber(fields[2]), times = times, units = units }
end

function sliding_log.encode(L, state)
  local out = { num(state.time), num(#state.times) }
  for i = 1, #state.times do
    out[#out + 1] = num(state.times[i])
    out[#out + 1] = num(state.units[i])
  end
  return table.concat(out, ' ')
end

KINDS['sliding-log'] = function(rate, period)
  local L = object_limit(sliding_log, tonumber(rate))
  L.period = tonumber(period)
  return L
end
