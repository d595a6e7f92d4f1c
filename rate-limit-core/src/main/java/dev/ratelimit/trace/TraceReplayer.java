package dev.ratelimit.trace;

import dev.ratelimit.Decision;
import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Replays requests, one JSON Lines record each, through a real {@link RateLimiter} on a
 * {@link ManualClock} (docs/design.md §8): the format of {@code ratelimit simulate} and of the
 * conformance vectors.
 *
 * <p>Input: {@code {"t": <epoch ms>, "limit": "api", "key": "u1", "op":
 * "limit|check|reserve|reset|take|refund", "count": 1}}; {@code op} defaults to {@code limit},
 * {@code count} to 1, {@code limit} to the only declared one, {@code key} to the global key
 * {@code ""}. {@code take} and {@code refund} are the two halves of a charge's settlement
 * ({@link dev.ratelimit.limiter.PendingCharge#settleActual}): units taken whatever the key holds,
 * units given back. Output: the input fields unchanged plus {@code allowed}, {@code remaining},
 * {@code retryAfterMs}, {@code resetAfterMs}; a reset adds {@code "reset": true}; a line that
 * can't be decided adds {@code "error": true} and a {@code message}, and changes nothing.
 */
public final class TraceReplayer {
  /** Fields this replayer writes; an input field of the same name is not echoed. */
  private static final Set<String> WRITTEN =
      Set.of("allowed", "remaining", "retryAfterMs", "resetAfterMs", "reset", "error", "message", "input");
  /** The ops a line may name, in the order errors list them. */
  private static final List<String> OPS = List.of("limit", "check", "reserve", "reset", "take", "refund");

  private final RateLimiter limiter;
  private final ManualClock clock;
  private final List<String> names;

  /**
   * @param limiter a limiter whose store reads {@code clock}
   */
  public TraceReplayer(RateLimiter limiter, ManualClock clock) {
    this.limiter = limiter;
    this.clock = clock;
    this.names = List.copyOf(limiter.limits().keySet());
  }

  /** One request as read from a line. */
  public record Request(long t, String limit, String key, String op, double count) {
    /** A take or a refund: units settled on a key, not a decision on a request. */
    public boolean settles() {
      return op.equals("take") || op.equals("refund");
    }
  }

  /**
   * What one line did.
   *
   * @param request what was asked, or {@code null} if the line could not be read
   * @param decision the decision, or {@code null} for a reset or an error
   * @param error why the line could not be decided, or {@code null}
   * @param json the output line
   */
  public record Outcome(Request request, Decision decision, String error, String json) {
    public boolean isError() {
      return error != null;
    }
  }

  /** Replays one JSON line. */
  public Outcome replay(String line) {
    Map<String, String> fields;
    try {
      fields = JsonLine.parse(line);
    } catch (IllegalArgumentException e) {
      return unreadable(line, e.getMessage());
    }
    return replay(fields);
  }

  /** The error line for an input line that could not be read at all: the message and the raw line. */
  public static Outcome unreadable(String line, String message) {
    String json = "{\"error\": true, \"message\": " + JsonLine.quote(message) + ", \"input\": "
        + JsonLine.quote(line) + "}";
    return new Outcome(null, null, message, json);
  }

  /** Replays one request given as fields (name to raw JSON value), such as a parsed access log line. */
  public Outcome replay(Map<String, String> fields) {
    Request request;
    try {
      request = read(fields);
    } catch (IllegalArgumentException e) {
      return error(fields, null, e.getMessage());
    }
    clock.setMillis(request.t());
    try {
      if (request.op().equals("reset")) {
        limiter.named(request.limit()).reset(request.key());
        return new Outcome(request, null, null, echo(fields).add("\"reset\": true").toString());
      }
      Decision decision = switch (request.op()) {
        case "limit" -> limiter.named(request.limit()).limit(request.key(), request.count());
        case "check" -> limiter.named(request.limit()).check(request.key(), request.count());
        case "take" -> limiter.named(request.limit()).take(request.key(), request.count());
        case "refund" -> limiter.named(request.limit()).refund(request.key(), request.count());
        default -> limiter.named(request.limit()).reserve(request.key(), request.count());
      };
      StringJoiner json = echo(fields)
          .add("\"allowed\": " + decision.allowed())
          .add("\"remaining\": " + number(decision.remaining()))
          .add("\"retryAfterMs\": " + decision.retryAfterMillis())
          .add("\"resetAfterMs\": " + decision.resetAfterMillis());
      return new Outcome(request, decision, null, json.toString());
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      return error(fields, request, e.getMessage());
    }
  }

  /** The level of a key at time {@code t}, without changing anything (a check for 0 units). */
  public Decision probe(String limit, String key, long t) {
    clock.setMillis(t);
    return limiter.named(limit).check(key, 0);
  }

  private Request read(Map<String, String> fields) {
    String t = fields.get("t");
    if (t == null) {
      throw new IllegalArgumentException("missing \"t\" (epoch milliseconds)");
    }
    long time;
    try {
      time = new BigDecimal(t).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      throw new IllegalArgumentException("\"t\" must be whole epoch milliseconds but was " + t);
    }
    String limit = text(fields, "limit", null);
    if (limit == null) {
      if (names.size() != 1) {
        throw new IllegalArgumentException("no \"limit\" given and " + names.size() + " limits are declared: "
            + String.join(", ", names));
      }
      limit = names.get(0);
    } else if (!names.contains(limit)) {
      throw new IllegalArgumentException("unknown limit '" + limit + "'; declared: " + String.join(", ", names));
    }
    String key = text(fields, "key", "");
    String op = text(fields, "op", "limit");
    if (!OPS.contains(op)) {
      throw new IllegalArgumentException("unknown op '" + op + "'; allowed: " + String.join(", ", OPS));
    }
    double count = 1;
    String rawCount = fields.get("count");
    if (rawCount != null) {
      try {
        count = Double.parseDouble(rawCount);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("\"count\" must be a number but was " + rawCount);
      }
    }
    return new Request(time, limit, key, op, count);
  }

  private static String text(Map<String, String> fields, String name, String fallback) {
    String raw = fields.get(name);
    if (raw == null) {
      return fallback;
    }
    if (!raw.startsWith("\"")) {
      throw new IllegalArgumentException("\"" + name + "\" must be a string but was " + raw);
    }
    return JsonLine.unquote(raw);
  }

  private Outcome error(Map<String, String> fields, Request request, String message) {
    String json = echo(fields).add("\"error\": true").add("\"message\": " + JsonLine.quote(message)).toString();
    return new Outcome(request, null, message, json);
  }

  /** An output object that starts with the input fields, as given. */
  private static StringJoiner echo(Map<String, String> fields) {
    StringJoiner json = new StringJoiner(", ", "{", "}");
    fields.forEach((name, raw) -> {
      if (!WRITTEN.contains(name)) {
        json.add(JsonLine.quote(name) + ": " + raw);
      }
    });
    return json;
  }

  /** Exact, without exponent or trailing zeros: {@code 0.025}, {@code -10}. */
  static String number(double value) {
    return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
  }
}
