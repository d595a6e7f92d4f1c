package dev.ratelimit.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * Round tick values for an axis: multiples of a step of 1, 2 or 5 times a power of ten.
 *
 * @param values the ticks from low to high
 * @param decimals the digits after the point a label needs at this step
 */
record Ticks(List<Double> values, int decimals) {

  /** About {@code target} ticks (at most twice as many) within {@code low} to {@code high}. */
  static Ticks between(double low, double high, int target) {
    double step = step(low, high, target);
    return of(step, Math.ceil(low / step - 1e-9), Math.floor(high / step + 1e-9));
  }

  /** Like {@link #between}, from the tick at or below {@code low} to the one at or above {@code high}. */
  static Ticks covering(double low, double high, int target) {
    double step = step(low, high, target);
    return of(step, Math.floor(low / step + 1e-9), Math.ceil(high / step - 1e-9));
  }

  /** The lowest tick. */
  double first() {
    return values.get(0);
  }

  /** The highest tick. */
  double last() {
    return values.get(values.size() - 1);
  }

  /** {@code value} with as many decimals as the step needs: {@code 0.5}, {@code 10}, never {@code -0}. */
  String label(double value) {
    String text = BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).toPlainString();
    return text.matches("-0(\\.0*)?") ? text.substring(1) : text;
  }

  private static double step(double low, double high, int target) {
    double span = high > low ? high - low : Math.max(1, Math.abs(high));
    double raw = span / target;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double fraction = raw / magnitude;
    return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
  }

  private static Ticks of(double step, double from, double to) {
    List<Double> values = new ArrayList<>();
    BigDecimal exact = new BigDecimal(Double.toString(step)); // 3 × 0.2 is 0.6, not 0.6000000000000001
    for (long k = (long) from; k <= (long) to; k++) {
      values.add(exact.multiply(BigDecimal.valueOf(k)).doubleValue());
    }
    return new Ticks(values, Math.max(0, (int) -Math.floor(Math.log10(step) + 1e-9)));
  }

  /** A unit for an axis of time, chosen so a span reads as a few units or more. */
  record TimeUnit(String symbol, long millis) {
    private static final List<TimeUnit> UNITS = List.of(new TimeUnit("d", 86_400_000), new TimeUnit("h", 3_600_000),
        new TimeUnit("min", 60_000), new TimeUnit("s", 1_000), new TimeUnit("ms", 1));

    /** The largest unit the span is at least three of: 60 s in seconds, 10 min in minutes. */
    static TimeUnit forSpan(long spanMillis) {
      return UNITS.stream().filter(unit -> spanMillis >= 3 * unit.millis).findFirst().orElse(UNITS.get(UNITS.size() - 1));
    }
  }
}
