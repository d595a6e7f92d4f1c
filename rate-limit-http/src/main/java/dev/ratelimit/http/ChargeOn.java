package dev.ratelimit.http;

import java.util.BitSet;
import java.util.Locale;

/**
 * The response statuses that count for a rule ({@code charge-on=401,403}, {@code 4xx},
 * {@code 5xx}, or a mix such as {@code 429,5xx}): the request is charged up front and refunded
 * once its status is known and is not one of these.
 */
public final class ChargeOn {
  private final BitSet statuses;
  private final String text;

  private ChargeOn(BitSet statuses, String text) {
    this.statuses = statuses;
    this.text = text;
  }

  /** @throws IllegalArgumentException naming the entry that is not a status (100-599) or a class (1xx-5xx) */
  public static ChargeOn parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("charge-on is empty; expected statuses or classes such as 401,403 or 4xx");
    }
    BitSet statuses = new BitSet(600);
    for (String entry : text.split(",", -1)) {
      String status = entry.strip().toLowerCase(Locale.ROOT);
      if (status.matches("[1-5]xx")) {
        int first = (status.charAt(0) - '0') * 100;
        statuses.set(first, first + 100);
      } else if (status.matches("[1-5][0-9][0-9]")) {
        statuses.set(Integer.parseInt(status));
      } else {
        throw new IllegalArgumentException("charge-on entry '" + entry.strip()
            + "' is not a status (100-599) or a class (1xx-5xx); expected e.g. 401,403 or 4xx");
      }
    }
    return new ChargeOn(statuses, text.strip());
  }

  /** Whether a response with this status keeps its charge. */
  public boolean counts(int status) {
    return status >= 0 && status < 600 && statuses.get(status);
  }

  @Override
  public String toString() {
    return text;
  }
}
