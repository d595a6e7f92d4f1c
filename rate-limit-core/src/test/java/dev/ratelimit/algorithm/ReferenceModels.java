package dev.ratelimit.algorithm;

import dev.ratelimit.FixedWindow;
import dev.ratelimit.Gcra;
import dev.ratelimit.Limit;
import dev.ratelimit.Quota;
import dev.ratelimit.SlidingLog;
import dev.ratelimit.SlidingWindow;
import dev.ratelimit.TokenBucket;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * Plain models of docs/design.md §2, written as the table states them (a level and a time, a window
 * start, a list of entries, calendar periods through java.time) and independent of the
 * production formulation (one number per key, epoch-day arithmetic). Each answers one question:
 * how many units does the key have at time t, given what it stored.
 */
final class ReferenceModels {
  private ReferenceModels() {}

  interface Model {
    /** Units available at {@code t}, changing nothing. */
    double level(long t);

    /** Stores an admitted consumption (or a reservation, or a take: into debt) of {@code count} at {@code t}. */
    void take(long t, double count);
  }

  static Model of(Limit limit) {
    if (limit instanceof TokenBucket l) {
      return new TokenBucketModel(l.rate() / l.period().toMillis(), l.capacity());
    }
    if (limit instanceof Gcra l) {
      return new GcraModel(l.period().toMillis() / l.rate(), l.capacity());
    }
    if (limit instanceof FixedWindow l) {
      return new FixedWindowModel(l);
    }
    if (limit instanceof SlidingWindow l) {
      return new SlidingWindowModel(l);
    }
    if (limit instanceof SlidingLog l) {
      return new SlidingLogModel(l);
    }
    return new QuotaModel((Quota) limit);
  }

  /** level = min(capacity, v + max(0, now − ts)·r); ts = max(ts, now) when stored. */
  static final class TokenBucketModel implements Model {
    private final double unitsPerMilli;
    private final double capacity;
    private double v;
    private long ts = Long.MIN_VALUE;

    TokenBucketModel(double unitsPerMilli, double capacity) {
      this.unitsPerMilli = unitsPerMilli;
      this.capacity = capacity;
      this.v = capacity;
    }

    @Override
    public double level(long t) {
      return ts == Long.MIN_VALUE ? capacity : Math.min(capacity, v + Math.max(0, t - ts) * unitsPerMilli);
    }

    @Override
    public void take(long t, double count) {
      v = level(t) - count;
      ts = Math.max(ts, t);
    }
  }

  /**
   * One TAT; units = (τ − (max(tat, now) − now))/T. The TAT is kept from the first time seen, as
   * an absolute double at epoch milliseconds would lose a quarter of a microsecond.
   */
  static final class GcraModel implements Model {
    private final double interval;
    private final double tau;
    private long origin;
    private double tat = Double.NEGATIVE_INFINITY;

    GcraModel(double interval, double capacity) {
      this.interval = interval;
      this.tau = capacity * interval;
    }

    @Override
    public double level(long t) {
      double now = t - origin;
      return (tau - (Math.max(tat, now) - now)) / interval;
    }

    @Override
    public void take(long t, double count) {
      if (tat == Double.NEGATIVE_INFINITY) {
        origin = t;
      }
      double now = t - origin;
      tat = Math.max(tat, now) + count * interval;
    }
  }

  /** Window start and level; each later window adds rate per window passed, up to capacity. */
  static final class FixedWindowModel implements Model {
    private final double rate;
    private final double capacity;
    private final long period;
    private final long start;
    private Long windowStart;
    private double v;

    FixedWindowModel(FixedWindow limit) {
      this.rate = limit.rate();
      this.capacity = limit.capacity();
      this.period = limit.period().toMillis();
      this.start = limit.start().toEpochMilli();
    }

    private long windowOf(long t) {
      return start + Math.floorDiv(t - start, period) * period;
    }

    @Override
    public double level(long t) {
      if (windowStart == null) {
        return capacity;
      }
      long w = windowOf(t);
      return w <= windowStart ? v : Math.min(capacity, v + (double) ((w - windowStart) / period) * rate);
    }

    @Override
    public void take(long t, double count) {
      double level = level(t);
      windowStart = windowStart == null ? windowOf(t) : Math.max(windowStart, windowOf(t));
      v = level - count;
    }
  }

  /** Counts per sub-window; the sub-window sliding out is weighted by the part still inside. */
  static final class SlidingWindowModel implements Model {
    private final double rate;
    private final int buckets;
    private final long width;
    private final TreeMap<Long, Double> counts = new TreeMap<>();
    private long latest = Long.MIN_VALUE;

    SlidingWindowModel(SlidingWindow limit) {
      this.rate = limit.rate();
      this.buckets = limit.buckets();
      this.width = limit.period().toMillis() / limit.buckets();
    }

    @Override
    public double level(long t) {
      long now = Math.max(t, latest);
      long c = Math.floorDiv(now, width);
      double used = 0;
      for (long i = c - buckets + 1; i <= c; i++) {
        used += counts.getOrDefault(i, 0.0);
      }
      used += counts.getOrDefault(c - buckets, 0.0) * (1 - (now - c * width) / (double) width);
      return rate - used;
    }

    @Override
    public void take(long t, double count) {
      long now = Math.max(t, latest);
      counts.merge(Math.floorDiv(now, width), count, Double::sum);
      latest = now;
    }
  }

  /** Every entry counts while its time is after now − period. */
  static final class SlidingLogModel implements Model {
    private record Entry(long time, double units) {}

    private final double rate;
    private final long period;
    private final List<Entry> entries = new ArrayList<>();
    private long latest = Long.MIN_VALUE;

    SlidingLogModel(SlidingLog limit) {
      this.rate = limit.rate();
      this.period = limit.period().toMillis();
    }

    @Override
    public double level(long t) {
      long now = Math.max(t, latest);
      return rate - entries.stream().filter(e -> e.time() > now - period).mapToDouble(Entry::units).sum();
    }

    @Override
    public void take(long t, double count) {
      long now = Math.max(t, latest);
      entries.add(new Entry(now, count));
      latest = now;
    }
  }

  /** Units used in the stored calendar period, computed with java.time at the fixed offset. */
  static final class QuotaModel implements Model {
    private final Quota limit;
    private OffsetDateTime periodStart;
    private double used;

    QuotaModel(Quota limit) {
      this.limit = limit;
    }

    private OffsetDateTime periodOf(long t) {
      OffsetDateTime local = Instant.ofEpochMilli(t).atOffset(limit.offset()).truncatedTo(ChronoUnit.DAYS);
      return switch (limit.cadence()) {
        case DAY -> local;
        case WEEK -> local.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        case MONTH -> local.withDayOfMonth(1);
      };
    }

    private boolean later(long t) {
      return periodStart == null || periodOf(t).isAfter(periodStart);
    }

    @Override
    public double level(long t) {
      return later(t) ? limit.rate() : limit.rate() - used;
    }

    @Override
    public void take(long t, double count) {
      if (later(t)) {
        periodStart = periodOf(t);
        used = 0;
      }
      used += count;
    }
  }
}
