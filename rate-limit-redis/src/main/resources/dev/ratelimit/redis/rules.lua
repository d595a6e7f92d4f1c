-- The rules every algorithm shares (docs/design.md §2 "Float noise", §3 waits), as
-- dev.ratelimit.algorithm.Rules has them: the same constants, the same order of operations, so
-- that a decision here is the decision the in-memory store makes. Times are whole milliseconds
-- held in doubles: exact up to 2^53, far beyond any epoch time.

-- Units within this fraction of the capacity count as reached (0.1 + 0.2 taken from 0.3 is admitted).
local TOLERANCE = 1e-12
-- Float noise in a level, relative to the larger of the capacity and the units: about 50 ulps.
local NOISE = 1e-14
-- A wait that stands for "not within any time a caller could wait" (Java: Long.MAX_VALUE / 4).
local NEVER = 2 ^ 61
-- Java's Long.MAX_VALUE as a double, where Rules.ceil saturates.
local LONG_MAX = 2 ^ 63
local INF = math.huge

-- Library functions as locals: a global's field is two table lookups on every use, a local none.
local floor, ceil, abs, max, min = math.floor, math.ceil, math.abs, math.max, math.min
local frexp, ldexp = math.frexp, math.ldexp
local pack, unpack_packed = struct.pack, struct.unpack
local sub, byte = string.sub, string.byte

-- Java's Math.max for doubles: +0 above -0 (Lua's math.max keeps its first argument on a tie).
local function java_max(a, b)
  if a > b then
    return a
  elseif b > a then
    return b
  end
  if a == 0 then
    return a + b -- equal zeros: -0 + 0 is +0
  end
  return a
end

-- The lowest level a request may leave behind: 0, or -maxReserved for a reserve.
local function floor_of(op, max_reserved)
  if op == 'r' then
    return -max_reserved
  end
  return 0
end

-- Rules.debtBound: how deep in debt a take ('d') may leave a key: one capacity, or maxReserved
-- when that is finite and deeper.
local function debt_bound(capacity, max_reserved)
  if max_reserved == INF then
    return capacity
  end
  return max(capacity, max_reserved)
end

-- How far below a boundary a level still counts as reaching it, for a limit of this capacity.
local function tolerance(capacity)
  return TOLERANCE * max(1, capacity)
end

-- Whether level reaches units, up to the tolerance.
local function reaches(level, units, tol)
  return level >= units - tol
end

-- A first guess at a wait, rounded up to whole milliseconds (never negative; NaN gives 0).
local function ceil_wait(millis)
  if not (millis > 0) then
    return 0
  end
  if millis >= LONG_MAX then
    return LONG_MAX
  end
  return ceil(millis)
end

-- Java's Math.ulp for finite doubles: the gap to the next larger magnitude. The last binade
-- asked about is kept ([ulp_low, ulp_high) has ulp_of): waits on one key's timeline mostly ask
-- about the same one, and a comparison costs less than frexp and ldexp.
local ulp_low, ulp_high, ulp_of = 1, 0, 0

local function ulp(x)
  if x < 0 then
    x = -x
  end
  if x >= ulp_low and x < ulp_high then
    return ulp_of
  end
  if x == 0 then
    return 2 ^ -1074
  end
  local _, e = frexp(x) -- x = m * 2^e with 0.5 <= m < 1
  local gap = max(ldexp(1, e - 53), 2 ^ -1074)
  if x < INF then
    ulp_low, ulp_high, ulp_of = ldexp(1, e - 1), ldexp(1, e), gap
  end
  return gap
end

-- Rules.exactCeil: the estimate rounded up when that is exactly the first whole millisecond at
-- which a level rising linearly (slope units per ms) reaches the units; -1 when a search must
-- decide, because the crossing lies within float noise of a whole millisecond.
local function exact_ceil(estimate, slope, units, capacity, now)
  if slope > 0 and estimate > 0 and estimate < NEVER then
    local rounded = ceil(estimate)
    local above = rounded - estimate
    local margin
    if above < 0.5 then
      margin = above * slope
    else
      margin = (1 - above) * slope
    end
    -- max(max(1, capacity), abs(units)) and abs(now), written out: this runs on every decision
    local scale, size, at = 1, units, now
    if capacity > scale then
      scale = capacity
    end
    if size < 0 then
      size = -size
    end
    if size > scale then
      scale = size
    end
    if at < 0 then
      at = -at
    end
    -- ulp's kept binade tested here first: this runs on every admitted decision, and a Lua call
    -- costs more than the comparison
    local x, gap = at + rounded, ulp_of
    if not (x >= ulp_low and x < ulp_high) then
      gap = ulp(x)
    end
    local noise = NOISE * scale + 8 * gap * slope
    if margin > noise then
      return rounded
    end
  end
  return -1
end

-- Rules.firstReaching: the first whole millisecond from now at which level_at(now + d) reaches
-- the units, by the algorithm's own arithmetic. Gallops from the estimate, then bisects (levels
-- never fall as time passes when nothing else happens). The level at now must not reach them.
local function first_reaching(level_at, now, units, tol, estimate)
  local high = min(NEVER, max(1, ceil_wait(estimate)))
  local low
  if reaches(level_at(now + high), units, tol) then
    if not reaches(level_at(now + high - 1), units, tol) then
      return high
    end
    low = high - 1
    local step = 2
    while low > 0 and reaches(level_at(now + low), units, tol) do
      high = low
      low = max(0, high - step)
      step = step * 2
    end
  else
    low = high
    local step = 1
    while not reaches(level_at(now + high), units, tol) do
      if high >= NEVER then
        return NEVER -- callers refuse counts that can never be admitted; this is a backstop
      end
      low = high
      high = min(NEVER, high + step)
      step = step * 2
    end
  end
  -- levels at low don't reach, at high do
  while high - low > 1 do
    local middle = low + floor((high - low) / 2)
    if reaches(level_at(now + middle), units, tol) then
      high = middle
    else
      low = middle
    end
  end
  return high
end

-- Doubles are written with %.17g, so that they read back exactly.
local function num(x)
  return string.format('%.17g', x)
end

-- The words of a stored value.
local function words(text)
  local list = {}
  for word in string.gmatch(text, '%S+') do
    list[#list + 1] = word
  end
  return list
end

-- The length of a stored value's head: the format version (FORMAT_HEAD, dev.ratelimit.redis.
-- ValueFormat) and the limit's fingerprint (dev.ratelimit.algorithm.LimitKind.fingerprint, eight
-- hex digits), which start every stored value.
local HEAD_LENGTH = #FORMAT_HEAD + 8

-- The kinds of limits this script knows, filled in by the algorithm sections below.
local KINDS = {}
