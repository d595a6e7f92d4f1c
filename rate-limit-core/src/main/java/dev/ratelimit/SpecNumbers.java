package dev.ratelimit;

import dev.ratelimit.algorithm.SpecWriter;

/** Numbers in messages, written as in specs: {@code 2}, {@code 2.5}. */
final class SpecNumbers {
  private SpecNumbers() {}

  static String format(double value) {
    return Double.isFinite(value) ? SpecWriter.number(value) : Double.toString(value);
  }
}
