package dev.ratelimit.algorithm;

import dev.ratelimit.Quota;
import java.time.LocalDate;

/**
 * Quota: units used in the current calendar period (day, ISO week from Monday, or month) at a
 * fixed UTC offset; everything returns when the period ends. A call from an earlier period than
 * the stored one stays in the stored period.
 */
final class QuotaAlgorithm extends ObjectAlgorithm<QuotaAlgorithm.State> {
  private static final long DAY = 86_400_000;

  /** Units used in the period {@code [start, end)}. */
  record State(long start, long end, double used) {}

  private final Quota.Cadence cadence;
  private final long offsetMillis;

  QuotaAlgorithm(double rate, Quota.Cadence cadence, long offsetMillis) {
    super(rate);
    this.cadence = cadence;
    this.offsetMillis = offsetMillis;
  }

  /** The state that counts at {@code now}: the stored one, or a fresh period once it has ended. */
  private State current(State state, long now) {
    if (state != null && now < state.end()) {
      return state;
    }
    return period(now);
  }

  /** The empty period that contains {@code now}. */
  State period(long now) {
    long localDay = Math.floorDiv(now + offsetMillis, DAY);
    long startDay;
    long endDay;
    switch (cadence) {
      case DAY -> {
        startDay = localDay;
        endDay = localDay + 1;
      }
      case WEEK -> {
        // 1970-01-01 was a Thursday: Monday-based weeks start 3 days before an epoch multiple of 7
        startDay = localDay - Math.floorMod(localDay + 3, 7);
        endDay = startDay + 7;
      }
      default -> {
        LocalDate first = LocalDate.ofEpochDay(localDay).withDayOfMonth(1);
        startDay = first.toEpochDay();
        endDay = first.plusMonths(1).toEpochDay();
      }
    }
    return new State(startDay * DAY - offsetMillis, endDay * DAY - offsetMillis, 0);
  }

  @Override
  public double level(State state, long now) {
    return state == null || now >= state.end() ? capacity : capacity - state.used();
  }

  @Override
  protected State consume(State state, long now, double count) {
    State current = current(state, now);
    return new State(current.start(), current.end(), current.used() + count);
  }

  @Override
  public State refund(State state, long now, double count) {
    if (state == null || now >= state.end()) {
      return null;
    }
    double used = Math.max(0, state.used() - count);
    return used == 0 ? null : new State(state.start(), state.end(), used);
  }

  @Override
  protected double estimateWait(State state, long now, double units) {
    return state.end() - now;
  }
}
