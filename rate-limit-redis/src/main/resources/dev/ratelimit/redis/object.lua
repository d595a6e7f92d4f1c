-- How the sliding kinds and quotas assemble a decision, as dev.ratelimit.algorithm.ObjectAlgorithm
-- (and ObjectKeySpace, the in-memory store) do it. Their state is a table (nil: a key never seen,
-- full), replaced as a whole on each consuming request; times are epoch milliseconds.
--
-- A limit L is a table of numbers (capacity, tol and the algorithm's own) with L.alg, the
-- algorithm: level(L, state, now), consume(L, state, now, count), refund(L, state, now, count)
-- (nil when nothing is left), estimate_wait(L, state, now, units), load(L, value) (the state of
-- a value of this format and this limit, its head a first word to skip), encode(L, state).

-- the first whole millisecond at which the level reaches units, searched over the levels
local function object_wait_until(L, state, now, units)
  local level = L.alg.level
  if reaches(level(L, state, now), units, L.tol) then
    return 0
  end
  local estimate = L.alg.estimate_wait(L, state, now, units - L.tol)
  return first_reaching(function(t) return level(L, state, t) end, now, units, L.tol, estimate)
end

-- Milliseconds until the key is back to its full, fresh state (0: it is, and may be dropped).
-- A state is one value here (state.lua): the table, or nil.
local function object_until_fresh(L, state, _, _, now)
  if state == nil then
    return 0
  end
  return object_wait_until(L, state, now, L.capacity)
end

-- ObjectAlgorithm.step: these kinds have no reservations, so op is 'l', 'c' or 'd' (a take).
-- Returns the decision (allowed, remaining, retryAfter, resetAfter), whether the state changed,
-- and the state afterwards.
local function object_apply(L, state, _, _, op, count, max_wait, now)
  if op == 'd' then
    -- ObjectAlgorithm.take: whatever the level, down to a level of -capacity at most; answered as
    -- a check for 0 units
    local units = min(count, L.alg.level(L, state, now) + L.capacity)
    local next_state = state
    if units > L.tol then -- float noise at the bound takes nothing
      next_state = L.alg.consume(L, state, now, units)
    end
    local allowed, remaining, retry_after, reset_after = object_apply(L, next_state, nil, nil, 'c', 0, 0, now)
    return allowed, remaining, retry_after, reset_after, next_state ~= state, next_state
  end
  if op == 'r' then
    error('this kind of limit has no reservations')
  end
  local lvl = L.alg.level(L, state, now)
  if not reaches(lvl, count, L.tol) then
    return 0, lvl, object_wait_until(L, state, now, count), object_until_fresh(L, state, nil, nil, now), false
  end
  if op == 'c' or count == 0 then
    local remaining = lvl - count
    if op == 'c' then
      remaining = lvl
    end
    return 1, remaining, 0, object_until_fresh(L, state, nil, nil, now), false
  end
  local next_state = L.alg.consume(L, state, now, count)
  return 1, java_max(0, lvl - count), 0, object_until_fresh(L, next_state, nil, nil, now), true, next_state
end

-- ObjectKeySpace.refundAt: units given back, then a check for 0 units: the decision, then the
-- state afterwards.
local function object_refund(L, state, _, _, count, now)
  local next_state = nil
  if state ~= nil then
    next_state = L.alg.refund(L, state, now, count)
  end
  local allowed, remaining, retry_after, reset_after = object_apply(L, next_state, nil, nil, 'c', 0, 0, now)
  return allowed, remaining, retry_after, reset_after, next_state
end

-- The value stored for a state: the head (format version and fingerprint), a space, the kind's text.
local function object_value(L, head, state)
  return head .. ' ' .. L.alg.encode(L, state)
end

local function object_limit(alg, capacity)
  return {
    alg = alg, capacity = capacity, tol = tolerance(capacity),
    apply = object_apply, refund = object_refund, until_fresh = object_until_fresh, load = alg.load,
    value = object_value,
  }
end
