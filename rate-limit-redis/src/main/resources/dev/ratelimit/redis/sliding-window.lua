-- sliding-window (docs/design.md §2): buckets sub-windows of w = period/buckets ms. At time t, in
-- sub-window c = floor(t/w), the units used are the counts of sub-windows c−buckets+1 … c plus
-- the count of c−buckets weighted by the part of it still inside the window, 1 − (t − c·w)/w;
-- admitted iff used + count ≤ capacity (= rate). Time is read as max(now, the latest time
-- stored), as SlidingWindowAlgorithm does.
--
-- State: { time, newest, counts } with counts[j + 1] the count of sub-window newest − j for
-- j = 0 … buckets. Stored value: time newest count0 … countB.
local sliding_window = {}

local function sw_count(L, state, window)
  local j = state.newest - window
  if j >= 0 and j <= L.buckets then
    return state.counts[j + 1]
  end
  return 0
end

local function sw_used(L, state, t)
  local width, buckets = L.width, L.buckets
  local c = floor(t / width)
  local full = 0
  for window = c - buckets + 1, c do
    full = full + sw_count(L, state, window)
  end
  return full + sw_count(L, state, c - buckets) * (1 - (t - c * width) / width)
end

function sliding_window.level(L, state, now)
  if state == nil then
    return L.capacity
  end
  return L.capacity - sw_used(L, state, max(now, state.time))
end

-- the counts re-based on the current sub-window, with count added to it
function sliding_window.consume(L, state, now, count)
  local t = now
  if state ~= nil then
    t = max(now, state.time)
  end
  local c = floor(t / L.width)
  local counts = {}
  for j = 0, L.buckets do
    if state ~= nil then
      counts[j + 1] = sw_count(L, state, c - j)
    else
      counts[j + 1] = 0
    end
  end
  counts[1] = counts[1] + count
  return { time = t, newest = c, counts = counts }
end

-- units go back newest sub-window first; nil once nothing is left
function sliding_window.refund(L, state, now, count)
  local counts = {}
  local left = count
  local empty = true
  for j = 1, L.buckets + 1 do
    local back = min(left, state.counts[j])
    counts[j] = state.counts[j] - back
    left = left - back
    empty = empty and counts[j] <= 0
  end
  if empty then
    return nil
  end
  return { time = state.time, newest = state.newest, counts = counts }
end

-- while sub-window s is current, only the count of s − buckets still decays
function sliding_window.estimate_wait(L, state, now, units)
  local width, buckets, capacity = L.width, L.buckets, L.capacity
  local t = max(now, state.time)
  local allowed_use = capacity - units
  for s = floor(t / width), state.newest + buckets do
    local full = 0
    for window = s - buckets + 1, s do
      full = full + sw_count(L, state, window)
    end
    if reaches(capacity - full, units, L.tol) then
      local decaying = sw_count(L, state, s - buckets)
      local fraction = 0
      if decaying > 0 then
        fraction = 1 - (allowed_use - full) / decaying
      end
      local at = max(t, s * width + max(0, fraction) * width)
      return at - now
    end
  end
  return (state.newest + buckets + 1) * width - now
end

function sliding_window.load(L, value)
  local fields = words(value)
  local counts = {}
  for j = 1, L.buckets + 1 do
    counts[j] = tonumber(fields[3 + j])
  end
  return { time = tonumber(fields[2]), newest = tonumber(fields[3]), counts = counts }
end

function sliding_window.encode(L, state)
  local out = { num(state.time), num(state.newest) }
  for j = 1, L.buckets + 1 do
    out[#out + 1] = num(state.counts[j])
  end
  return table.concat(out, ' ')
end

KINDS['sliding-window'] = function(rate, period, buckets)
  local L = object_limit(sliding_window, tonumber(rate))
  L.buckets = tonumber(buckets)
  L.width = tonumber(period) / L.buckets -- whole milliseconds: the limit checks it
  return L
end
