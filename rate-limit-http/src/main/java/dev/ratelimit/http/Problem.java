package dev.ratelimit.http;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Why a request was refused, with what its RFC 9457 problem body says (docs/design.md §6.5): the
 * one writer of the 429, 503 and 400 bodies of every front end.
 *
 * @param reason rate limited (429), store unavailable or busy (503), or key missing (400)
 * @param limit the limit that refused: on a denial, the denying limit with the longest wait
 * @param retryAfterSeconds the {@code Retry-After} sent (429 and 503); 0 for a missing key
 * @param missingKey for a missing key, the key as configured ({@code header:X-Api-Key}); else null
 */
public record Problem(Reason reason, String limit, long retryAfterSeconds, String missingKey) {

  /** JSON is UTF-8 by definition (RFC 8259): no charset parameter, as RFC 9457 shows it. */
  public static final String CONTENT_TYPE = "application/problem+json";

  /** The ways a request is refused, each with its status, title and problem type. */
  public enum Reason {
    RATE_LIMITED(429, "Too Many Requests", "https://iana.org/assignments/http-problem-types#quota-exceeded"),
    STORE_UNAVAILABLE(503, "Service Unavailable", "about:blank"),
    BUSY(503, "Service Unavailable", "about:blank"),
    MISSING_KEY(400, "Bad Request", "about:blank");

    private final int status;
    private final String title;
    private final String type;

    Reason(int status, String title, String type) {
      this.status = status;
      this.title = title;
      this.type = type;
    }
  }

  public Problem {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(limit, "limit");
  }

  public static Problem rateLimited(String limit, long retryAfterSeconds) {
    return new Problem(Reason.RATE_LIMITED, limit, retryAfterSeconds, null);
  }

  public static Problem storeUnavailable(String limit, long retryAfterSeconds) {
    return new Problem(Reason.STORE_UNAVAILABLE, limit, retryAfterSeconds, null);
  }

  /**
   * Too many decisions are waiting for the store (its bound on asynchronous requests, such as the
   * Redis store's {@code maxPending}): load, not a failure, so no failure policy decided it.
   */
  public static Problem busy(String limit, long retryAfterSeconds) {
    return new Problem(Reason.BUSY, limit, retryAfterSeconds, null);
  }

  public static Problem missingKey(String limit, String key) {
    return new Problem(Reason.MISSING_KEY, limit, 0, key);
  }

  public int status() {
    return reason.status;
  }

  public String title() {
    return reason.title;
  }

  /** The problem type: the IANA {@code quota-exceeded} type for 429, {@code about:blank} otherwise. */
  public String type() {
    return reason.type;
  }

  /** One sentence for people; names the limit, never the key's value (often an address or a user). */
  public String detail() {
    return switch (reason) {
      case RATE_LIMITED -> "Rate limit '" + limit + "' exceeded; retry in " + retryAfterSeconds + " s";
      case BUSY -> "Rate limit '" + limit + "' can't be checked now: too many decisions are waiting for its store; retry in "
          + retryAfterSeconds + " s";
      case STORE_UNAVAILABLE -> "Rate limit '" + limit + "' can't be checked: its store is unavailable; retry in "
          + retryAfterSeconds + " s";
      case MISSING_KEY -> "Rate limit '" + limit + "' needs a key from " + missingKey
          + ", and the request has none";
    };
  }

  /**
   * The {@code application/problem+json} body (RFC 9457): type, title, status, detail, instance,
   * then {@code limit} and {@code retryAfter} (seconds, equal to {@code Retry-After}), or
   * {@code limit} and {@code key} for a missing key.
   *
   * @param instance the request URI
   */
  public String toJson(String instance) {
    Map<String, Object> members = new LinkedHashMap<>();
    members.put("limit", limit);
    if (reason == Reason.MISSING_KEY) {
      members.put("key", missingKey);
    } else {
      members.put("retryAfter", retryAfterSeconds);
    }
    return json(status(), type(), title(), detail(), instance, members);
  }

  /**
   * An {@code application/problem+json} body (RFC 9457): type, title, status, detail, instance,
   * then the extension members in their order, numbers as numbers and anything else as a string.
   * Every answer the front ends refuse with is written here.
   *
   * @param instance the request URI
   */
  public static String json(int status, String type, String title, String detail, String instance,
      Map<String, ?> members) {
    StringBuilder json = new StringBuilder(256).append('{');
    member(json, "type", type).append(',');
    member(json, "title", title).append(',');
    json.append("\"status\":").append(status).append(',');
    member(json, "detail", detail).append(',');
    member(json, "instance", instance == null ? "" : instance);
    members.forEach((name, value) -> {
      json.append(',');
      if (value instanceof Number number) {
        json.append('"').append(name).append("\":").append(number);
      } else {
        member(json, name, String.valueOf(value));
      }
    });
    return json.append('}').toString();
  }

  /** Sets the status and writes the body; the headers (rate limit headers, {@code Retry-After}) are set already. */
  public void write(Response response, String instance) {
    response.refuse(status(), CONTENT_TYPE, toJson(instance).getBytes(StandardCharsets.UTF_8));
  }

  private static StringBuilder member(StringBuilder json, String name, String value) {
    json.append('"').append(name).append("\":\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    return json.append('"');
  }
}
