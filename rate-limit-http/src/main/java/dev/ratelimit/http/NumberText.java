package dev.ratelimit.http;

/**
 * The decimal text of the whole numbers in header values, without a new string for each small
 * one. Every limited response carries three or four numbers (the capacity, the units remaining,
 * the seconds to reset), and for most limits all of them are below a thousand or so: the same few
 * strings, made once, spare each response as many allocations and digit conversions.
 */
final class NumberText {
  /** Numbers below this are kept once made: 4 KB of references, and at most a thousand short strings. */
  static final int KEPT = 1024;
  private static final String[] SMALL = new String[KEPT];

  private NumberText() {}

  /** {@code Long.toString(n)}, the same characters; for 0 to {@link #KEPT} - 1, the same string every time. */
  static String of(long n) {
    if (n < 0 || n >= KEPT) {
      return Long.toString(n);
    }
    String text = SMALL[(int) n];
    if (text == null) {
      // two threads may both make it: equal strings, and a String is safe to share through a race
      text = Long.toString(n);
      SMALL[(int) n] = text;
    }
    return text;
  }
}
