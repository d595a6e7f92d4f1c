-- How token bucket, GCRA and fixed window assemble a decision from their level over time, as
-- dev.ratelimit.algorithm.WordAlgorithm (and WordKeySpace, the in-memory store) do it.
--
-- State: one number (the algorithm's "word") and a stamp, the latest time stored, both on the
-- key's own timeline t = now - base - offset. The base is fixed when the key is first stored
-- (aligned to the period for fixed windows), so the doubles stay small and exact even at epoch
-- times, as the in-memory store's base per limit does; the offset places fixed windows at their
-- start or the key's phase. A key never seen (or reset, or expired) is FRESH: full.
--
-- Stored value (after its head: the format version and the limit's fingerprint, state.lua): '='
-- then word, stamp and base as three little-endian doubles (struct.pack '<ddd': exact, and far
-- cheaper for Redis than formatting them; no stamp is -inf), then the writer's signature when it
-- converts.
--
-- A limit L is a table of numbers (capacity, max_reserved, tol, offset, base_period and the
-- algorithm's own) with L.alg, the algorithm: level(L, word, stamp, now),
-- with_level(L, word, stamp, now, level), estimate_wait(L, word, stamp, now, level, units) and
-- uses_stamp; and L.slope, how fast its level rises (units per ms; 0 when it rises in steps).
-- Functions take L rather than closing over it, so that building a limit costs one small table.

local FRESH = -INF    -- WordAlgorithm.FRESH: every algorithm reads it as the capacity
local NO_STAMP = -INF -- WordAlgorithm.NO_STAMP: max(stamp, now) is now

-- Milliseconds until the level (lvl at now) reaches units: the closed form when it is safely
-- away from a millisecond boundary, else a search over the algorithm's own levels.
-- (reaches(lvl, units, tol) is written out in the paths every decision takes: a call costs
-- about as much as the comparison.)
local function word_wait_until(L, word, stamp, now, lvl, units)
  local tol = L.tol
  if lvl >= units - tol then
    return 0
  end
  local alg = L.alg
  local estimate = alg.estimate_wait(L, word, stamp, now, lvl, units - tol)
  local exact = exact_ceil(estimate, L.slope, units, L.capacity, now)
  if exact >= 0 then
    return exact
  end
  return first_reaching(function(t) return alg.level(L, word, stamp, t) end, now, units, L.tol, estimate)
end

local function word_wait_from(L, word, stamp, now, units)
  return word_wait_until(L, word, stamp, now, L.alg.level(L, word, stamp, now), units)
end

-- WordAlgorithm.decide: the decision for one request, changing nothing (checks, denials, 0 units,
-- and the decision behind a reservation): allowed, remaining, retryAfter, resetAfter.
local function word_decide(L, word, stamp, op, count, max_wait, now)
  local alg = L.alg
  local capacity = L.capacity
  local lvl = alg.level(L, word, stamp, now)
  local floor_level = floor_of(op, L.max_reserved)
  if not reaches(lvl - count, floor_level, L.tol) then
    -- denied: the current level, and when the same request would be admitted (a reservation:
    -- when it would fit within maxReserved)
    local needed = count
    if op == 'r' then
      needed = count - L.max_reserved
    end
    return 0, lvl, word_wait_until(L, word, stamp, now, lvl, needed),
        word_wait_until(L, word, stamp, now, lvl, capacity)
  end
  -- admissible: a check, 0 units, or a reservation that may still be too far off
  local after = java_max(lvl - count, floor_level)
  local consumes = op ~= 'c' and count > 0
  local next_word, next_stamp = word, stamp
  if consumes then
    next_word = alg.with_level(L, word, stamp, now, after)
    next_stamp = max(stamp, now)
  end
  -- a reservation, even of 0 units, runs once the key is out of debt
  local wait = 0
  if op == 'r' then
    wait = word_wait_from(L, next_word, next_stamp, now, 0)
  end
  if wait > max_wait or wait >= NEVER then
    -- it would fit, but not within the caller's wait: denied, retry as soon as it would; or its
    -- turn never comes (a huge count on an unbounded maxReserved), and it takes nothing
    local retry_after = wait - max_wait
    if wait >= NEVER then
      retry_after = NEVER
    end
    return 0, lvl, retry_after, word_wait_until(L, word, stamp, now, lvl, capacity)
  end
  local remaining, reset_after = after, nil
  if op == 'c' then
    remaining = lvl
  end
  if consumes then
    reset_after = word_wait_from(L, next_word, next_stamp, now, capacity)
  else
    reset_after = word_wait_until(L, word, stamp, now, lvl, capacity)
  end
  return 1, remaining, wait, reset_after
end

-- A key with no state (word nil): FRESH, no stamp, and the base its timeline would start at now.
local function word_fresh(L, now)
  return FRESH, NO_STAMP, now - now % L.base_period
end

-- One request (op 'l' limit, 'c' check, 'r' reserve, 'd' take) at now (epoch ms) on the state
-- word, stamp, base (word nil: fresh), as WordKeySpace.applyAt: returns the decision (allowed,
-- remaining, retryAfter, resetAfter), whether the state changed, and the state afterwards.
-- WordAlgorithm.next (the word to write, or none: a denial, a check, 0 units), WordAlgorithm.take
-- and WordAlgorithm.admitted (the decision for the word written; for a take, a check for 0 units)
-- are written out here, in their one place: on this path a Lua
-- call costs about as much as the arithmetic it runs (callgrind, docs/benchmarks.md §4), and so
-- do a table made and collected: the state and the decision are multiple values, never tables.
local function word_apply(L, word, stamp, base, op, count, max_wait, now)
  if word == nil then
    word, stamp, base = word_fresh(L, now)
  end
  local t = now - base - L.offset
  local alg = L.alg
  local next_word = nil
  if op == 'l' and count ~= 0 then
    local after = alg.level(L, word, stamp, t) - count
    if after >= -L.tol then -- reaches(after, 0, L.tol)
      if not (after > 0) then
        after = 0
      end
      next_word = alg.with_level(L, word, stamp, t, after)
    end
  elseif op == 'r' and count ~= 0 then
    local allowed, remaining = word_decide(L, word, stamp, op, count, max_wait, t)
    if allowed == 1 then
      next_word = alg.with_level(L, word, stamp, t, remaining)
    end
  elseif op == 'd' and count ~= 0 then
    -- WordAlgorithm.take: whatever the level, into debt down to the bound, never deeper; nothing
    -- written when nothing is taken (a key at the bound, or deeper by a reservation)
    local lvl = alg.level(L, word, stamp, t)
    local after = java_max(lvl - count, min(lvl, -L.debt))
    if not reaches(after, lvl, L.tol) then -- float noise at the bound takes nothing
      next_word = alg.with_level(L, word, stamp, t, after)
    end
  end
  if next_word == nil then
    if op == 'd' then
      op, count = 'c', 0 -- a take that takes nothing answers as a take does: a check for 0 units
    end
    local allowed, remaining, retry_after, reset_after = word_decide(L, word, stamp, op, count, max_wait, t)
    return allowed, remaining, retry_after, reset_after, false
  end
  local next_stamp = stamp
  if alg.uses_stamp then
    if t > stamp then
      next_stamp = t -- max(stamp, t): a clock going back never lowers the stamp
    end
  end
  if op == 'd' then
    local allowed, remaining, retry_after, reset_after = word_decide(L, next_word, next_stamp, 'c', 0, 0, t)
    return allowed, remaining, retry_after, reset_after, true, next_word, next_stamp, base
  end
  local lvl = alg.level(L, next_word, next_stamp, t)
  local wait = 0
  if op == 'r' then
    wait = word_wait_until(L, next_word, next_stamp, t, lvl, 0)
  end
  return 1, lvl, wait, word_wait_until(L, next_word, next_stamp, t, lvl, L.capacity), true,
      next_word, next_stamp, base
end

-- Gives count unused units back, never above the capacity (WordKeySpace.refundAt): the decision,
-- a check for 0 units afterwards, then the state afterwards (nil: still fresh).
local function word_refund(L, word, stamp, base, count, now)
  if word == nil then
    local _, _, fresh_base = word_fresh(L, now)
    local allowed, remaining, retry_after, reset_after =
        word_decide(L, FRESH, NO_STAMP, 'c', 0, 0, now - fresh_base - L.offset)
    return allowed, remaining, retry_after, reset_after, nil
  end
  local t = now - base - L.offset
  local level = min(L.capacity, L.alg.level(L, word, stamp, t) + count)
  local next_word = L.alg.with_level(L, word, stamp, t, level)
  -- the refunded state is read at max(t, stamp), as a consumption's: its time is stored too
  local next_stamp = stamp
  if L.alg.uses_stamp then
    next_stamp = max(stamp, t)
  end
  local allowed, remaining, retry_after, reset_after = word_decide(L, next_word, next_stamp, 'c', 0, 0, t)
  return allowed, remaining, retry_after, reset_after, next_word, next_stamp, base
end

-- Milliseconds until the key is back to its full, fresh state (0: it is, and may be dropped).
local function word_until_fresh(L, word, stamp, base, now)
  if word == nil then
    return 0
  end
  return word_wait_from(L, word, stamp, now - base - L.offset, L.capacity)
end

-- the byte after the head of a word kind's value (an object kind's has a space there)
local PACKED = string.byte('=')

-- The state (word, stamp, base) of a stored value of this format; nil (fresh) when no word kind
-- wrote it. It may end with its writer's signature (signature_of): what converts its state,
-- returned when signed (only a value with another limit's fingerprint needs it).
local function word_load(L, value, signed)
  local n = #value
  if byte(value, HEAD_LENGTH + 1) ~= PACKED or n < HEAD_LENGTH + 25 then
    return nil
  end
  local word, stamp, base = unpack_packed('<ddd', value, HEAD_LENGTH + 2)
  if signed and n > HEAD_LENGTH + 25 then
    return word, stamp, base, sub(value, HEAD_LENGTH + 26)
  end
  return word, stamp, base
end

-- The value stored for a state: the head, '=', the packed state and the writer's signature when
-- it converts (L.suffix: '' when it does not), in one concatenation.
local function word_value(L, head, word, stamp, base)
  return head .. '=' .. pack('<ddd', word, stamp, base) .. L.suffix
end

-- A limit of a word kind, from the parameters every one of them shares: rate, period (ms),
-- capacity, maxReserved (-1: unbounded), offset (fixed windows: where the key's windows begin,
-- modulo the period); base_period: the base is a multiple of it (the period for fixed windows,
-- else 1 ms).
-- A state written under P, another limit of L's kind (the writer its value names): its units
-- used at now stay used, capped by L's capacity, as WordAlgorithm.used and carried do
-- (docs/design.md §2.7).
local function word_carry(L, P, word, stamp, base, now)
  local used = P.capacity - P.alg.level(P, word, stamp, now - base - P.offset)
  local new_base = now - now % L.base_period
  local t = now - new_base - L.offset
  local level = L.capacity - min(java_max(used, 0), L.capacity)
  local next_stamp = NO_STAMP
  if L.alg.uses_stamp then
    next_stamp = t
  end
  return L.alg.with_level(L, FRESH, NO_STAMP, t, level), next_stamp, new_base
end

local function word_limit(alg, rate, period, capacity, max_reserved, offset, base_period)
  capacity = tonumber(capacity)
  max_reserved = tonumber(max_reserved)
  if max_reserved < 0 then
    max_reserved = INF
  end
  return {
    alg = alg, rate = tonumber(rate), period = tonumber(period), capacity = capacity,
    max_reserved = max_reserved, tol = tolerance(capacity), debt = debt_bound(capacity, max_reserved),
    offset = tonumber(offset),
    base_period = base_period or 1,
    apply = word_apply, refund = word_refund, until_fresh = word_until_fresh, load = word_load,
    value = word_value, carry = word_carry,
  }
end
