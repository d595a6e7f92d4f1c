-- gcra (docs/design.md §2): one theoretical arrival time (TAT) per key. With T = period/rate the
-- emission interval and τ = capacity·T, units at now are capacity − (max(tat, now) − now)/T;
-- admitted iff the units left stay above the floor (the same as next − now ≤ τ, or τ +
-- maxReserved·T for a reserve). It reads now as given, as GcraAlgorithm does: a clock going back
-- can only lose units until time catches up.
local gcra = { uses_stamp = false }

-- capacity − (tatE − now)/T rather than (τ − (tatE − now))/T: exactly the capacity once tat ≤ now
function gcra.level(L, tat, stamp, now)
  if tat > now then
    return L.capacity - (tat - now) * L.units_per_milli
  end
  return L.capacity
end

-- the TAT that leaves this level at now: tatE + count·T in the form of units
function gcra.with_level(L, tat, stamp, now, level)
  return now + (L.capacity - level) * L.emission_interval
end

function gcra.estimate_wait(L, tat, stamp, now, level, units)
  return tat - now - (L.capacity - units) * L.emission_interval
end

KINDS['gcra'] = function(rate, period, capacity, max_reserved, offset)
  local L = word_limit(gcra, rate, period, capacity, max_reserved, offset)
  L.emission_interval = L.period / L.rate
  L.units_per_milli = L.rate / L.period
  L.slope = L.units_per_milli
  return L
end
