-- fixed-window (docs/design.md §2): windows of one period on the key's timeline (Java passes the
-- offset of the configured start, or of the key's phase for phase=random: FNV-1a of the key).
-- Kept as one number d, as FixedWindowAlgorithm does: in window k the level is
-- min(capacity, k·rate − d), so entering a later window adds rate per window passed, up to the
-- capacity (with capacity = rate, the classic reset). A call from an earlier window than the
-- stamp's stays in the stamp's window.
local fixed_window = { uses_stamp = true }

-- the later of now's window and the stamp's
local function fw_window(L, now, stamp)
  return max(floor(now / L.period), floor(stamp / L.period))
end

local function fw_level_in(L, d, k)
  return min(L.capacity, k * L.rate - d)
end

function fixed_window.level(L, d, stamp, now)
  return fw_level_in(L, d, fw_window(L, now, stamp))
end

function fixed_window.with_level(L, d, stamp, now, level)
  return fw_window(L, now, stamp) * L.rate - level
end

-- the first later window whose level reaches the units; exact on whole windows
-- (FixedWindowAlgorithm.estimateWait: a count no window within NEVER can serve, or above the
-- capacity, is answered NEVER at once; a search without end would block Redis for every client)
function fixed_window.estimate_wait(L, d, stamp, now, level, units)
  local current = fw_window(L, now, stamp)
  local last = current + floor(NEVER / L.period)
  local first = ceil((units + d) / L.rate)
  if not reaches(L.capacity, units, L.tol) or not (first < last) then
    return NEVER
  end
  local target = max(current + 1, first)
  while target > current + 1 and reaches(fw_level_in(L, d, target - 1), units, L.tol) do
    target = target - 1
  end
  while not reaches(fw_level_in(L, d, target), units, L.tol) do
    target = target + 1
    if target > last then
      return NEVER
    end
  end
  return target * L.period - now
end

KINDS['fixed-window'] = function(rate, period, capacity, max_reserved, offset)
  -- the base of a key's timeline is a whole number of periods, so windows stay where they are
  local L = word_limit(fixed_window, rate, period, capacity, max_reserved, offset, tonumber(period))
  L.slope = 0 -- the level rises in steps
  return L
end
