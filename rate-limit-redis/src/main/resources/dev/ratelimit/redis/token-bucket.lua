-- token-bucket (docs/design.md §2): capacity units, refilled continuously at r = rate/period per ms.
-- Kept as one number, as TokenBucketAlgorithm does: the time e at which the bucket was (or will
-- be) empty, so the level at t is min(capacity, (t - e)·r). Time is read as max(now, stamp): a
-- clock going back neither adds units nor loses any, and waits include the gap back to the stamp.
local token_bucket = { uses_stamp = true }

-- (max(now, stamp) is written out below, as Lua's math.max(now, stamp) does it: now unless
-- stamp is greater. These run on every decision, and a C call costs more than the comparison.)

-- level = min(capacity, v + max(0, now − ts)·r), in the one-number form
function token_bucket.level(L, empty_at, stamp, now)
  if stamp > now then
    now = stamp
  end
  local level = (now - empty_at) * L.units_per_milli
  if level < L.capacity then
    return level
  end
  return L.capacity
end

-- the empty time that gives this level at max(now, stamp)
function token_bucket.with_level(L, empty_at, stamp, now, level)
  if stamp > now then
    now = stamp
  end
  return now - level * L.millis_per_unit
end

-- the level rises by r per ms from max(now, stamp) on
function token_bucket.estimate_wait(L, empty_at, stamp, now, level, units)
  local from = now
  if stamp > from then
    from = stamp
  end
  return from - now + (units - level) * L.millis_per_unit
end

KINDS['token-bucket'] = function(rate, period, capacity, max_reserved, offset)
  local L = word_limit(token_bucket, rate, period, capacity, max_reserved, offset)
  L.units_per_milli = L.rate / L.period
  L.millis_per_unit = L.period / L.rate
  L.slope = L.units_per_milli -- the level rises by r per ms
  return L
end
