-- quota (docs/design.md §2): units used in the current calendar period (day, ISO week from Monday, or
-- month) at a fixed UTC offset; admitted iff used + count ≤ rate; everything returns when the
-- period ends, nothing carries over. A call from an earlier period than the stored one stays in
-- the stored period, as QuotaAlgorithm does.
--
-- State: { start, end, used }. Stored value: start end used.
local DAY = 86400000

-- days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil)
local function days_from_civil(y, m, d)
  if m <= 2 then
    y = y - 1
  end
  local era = floor(y / 400)
  local yoe = y - era * 400
  local mp = (m + 9) % 12
  local doy = floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

-- the year and month of a day since 1970-01-01 (civil_from_days)
local function civil_from_days(z)
  z = z + 719468
  local era = floor(z / 146097)
  local doe = z - era * 146097
  local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
  local y = yoe + era * 400
  local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
  local mp = floor((5 * doy + 2) / 153)
  local m = mp < 10 and mp + 3 or mp - 9
  if m <= 2 then
    y = y + 1
  end
  return y, m
end

local quota = {}

-- the empty period that contains now
local function quota_period(L, now)
  local local_day = floor((now + L.offset) / DAY)
  local start_day, end_day
  if L.cadence == 'day' then
    start_day, end_day = local_day, local_day + 1
  elseif L.cadence == 'week' then
    -- 1970-01-01 was a Thursday: Monday-based weeks start 3 days before an epoch multiple of 7
    start_day = local_day - (local_day + 3) % 7
    end_day = start_day + 7
  elseif L.cadence == 'month' then
    local y, m = civil_from_days(local_day)
    start_day = days_from_civil(y, m, 1)
    if m == 12 then
      end_day = days_from_civil(y + 1, 1, 1)
    else
      end_day = days_from_civil(y, m + 1, 1)
    end
  else
    error('unknown quota cadence ' .. tostring(L.cadence))
  end
  return { start = start_day * DAY - L.offset, ['end'] = end_day * DAY - L.offset, used = 0 }
end

function quota.level(L, state, now)
  if state == nil or now >= state['end'] then
    return L.capacity
  end
  return L.capacity - state.used
end

-- the stored period while it lasts (even when asked from an earlier one), else now's
function quota.consume(L, state, now, count)
  local current = state
  if state == nil or now >= state['end'] then
    current = quota_period(L, now)
  end
  return { start = current.start, ['end'] = current['end'], used = current.used + count }
end

function quota.refund(L, state, now, count)
  if now >= state['end'] then
    return nil
  end
  local used = max(0, state.used - count)
  if used == 0 then
    return nil
  end
  return { start = state.start, ['end'] = state['end'], used = used }
end

function quota.estimate_wait(L, state, now, units)
  return state['end'] - now
end

function quota.load(L, value)
  local start, finish, used = string.match(value, '^%S+ (%S+) (%S+) (%S+)$')
  return { start = tonumber(start), ['end'] = tonumber(finish), used = tonumber(used) }
end

function quota.encode(L, state)
  return num(state.start) .. ' ' .. num(state['end']) .. ' ' .. num(state.used)
end

-- rate, cadence ('day', 'week' or 'month'), the UTC offset in ms
KINDS['quota'] = function(rate, cadence, offset)
  local L = object_limit(quota, tonumber(rate))
  L.cadence = cadence
  L.offset = tonumber(offset)
  return L
end
