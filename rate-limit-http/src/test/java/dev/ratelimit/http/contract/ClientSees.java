package dev.ratelimit.http.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * What an HTTP client sees of docs/design.md §6, written once as literal text and asserted by
 * the tests of every front end (servlet containers, WebFlux, the gateway) against real
 * responses: the same headers, the same bodies, whatever the runtime. The values are written
 * out, not computed by the code under test, so that a change of contract fails here.
 *
 * @param status the response status
 * @param header a header's first value, or null; names are case-insensitive
 * @param body the response body as text
 */
public record ClientSees(int status, Function<String, String> header, String body) {

  /** A response whose headers are a map of names to first values (any case). */
  public static ClientSees response(int status, Map<String, String> headers, String body) {
    return new ClientSees(status, name -> headers.entrySet().stream()
        .filter(entry -> entry.getKey().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)))
        .map(Map.Entry::getValue).findFirst().orElse(null), body);
  }

  /** The legacy and IETF headers of one limit's admitted or denied request (§6.4), without {@code epoch}. */
  public ClientSees hasRateLimitHeaders(String limit, long capacity, long window, long remaining, long reset) {
    assertThat(header.apply("X-RateLimit-Limit")).as("X-RateLimit-Limit").isEqualTo(Long.toString(capacity));
    assertThat(header.apply("X-RateLimit-Remaining")).as("X-RateLimit-Remaining").isEqualTo(Long.toString(remaining));
    assertThat(header.apply("X-RateLimit-Reset")).as("X-RateLimit-Reset").isEqualTo(Long.toString(reset));
    assertThat(header.apply("RateLimit-Policy")).as("RateLimit-Policy")
        .isEqualTo("\"" + limit + "\";q=" + capacity + ";w=" + window);
    assertThat(header.apply("RateLimit")).as("RateLimit").isEqualTo("\"" + limit + "\";r=" + remaining + ";t=" + reset);
    return this;
  }

  /** No header of the rate limit families: a request no rule matched, or a refusal without a decision. */
  public ClientSees hasNoRateLimitHeaders() {
    for (String name : new String[] {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
        "RateLimit-Policy", "RateLimit"}) {
      assertThat(header.apply(name)).as(name).isNull();
    }
    return this;
  }

  /** The 429 of §6.5: {@code Retry-After} and the quota-exceeded problem body naming the limit. */
  public ClientSees isRateLimited(String limit, long retryAfter, String instance) {
    assertThat(status).as("status").isEqualTo(429);
    assertThat(header.apply("Retry-After")).as("Retry-After").isEqualTo(Long.toString(retryAfter));
    isProblemJson();
    assertThat(body).isEqualTo("{\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
        + "\"title\":\"Too Many Requests\",\"status\":429,\"detail\":\"Rate limit '" + limit + "' exceeded; retry in "
        + retryAfter + " s\",\"instance\":\"" + instance + "\",\"limit\":\"" + limit + "\",\"retryAfter\":" + retryAfter
        + "}");
    return this;
  }

  /** The 400 of {@code missing-key=deny} (§6.5): no {@code Retry-After}, no rate limit headers. */
  public ClientSees isMissingKey(String limit, String key, String instance) {
    assertThat(status).as("status").isEqualTo(400);
    assertThat(header.apply("Retry-After")).as("Retry-After").isNull();
    isProblemJson();
    hasNoRateLimitHeaders();
    assertThat(body).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
        + "\"detail\":\"Rate limit '" + limit + "' needs a key from " + key + ", and the request has none\","
        + "\"instance\":\"" + instance + "\",\"limit\":\"" + limit + "\",\"key\":\"" + key + "\"}");
    return this;
  }

  /** The 503 of a closed policy while the store is down (§6.5): {@code Retry-After: 1}, no rate limit headers. */
  public ClientSees isStoreUnavailable(String limit, String instance) {
    assertThat(status).as("status").isEqualTo(503);
    assertThat(header.apply("Retry-After")).as("Retry-After").isEqualTo("1");
    isProblemJson();
    hasNoRateLimitHeaders();
    assertThat(body).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
        + "\"detail\":\"Rate limit '" + limit + "' can't be checked: its store is unavailable; retry in 1 s\","
        + "\"instance\":\"" + instance + "\",\"limit\":\"" + limit + "\",\"retryAfter\":1}");
    return this;
  }

  /**
   * The 503 of a decision the store refused to queue, too many waiting for it (§6.5):
   * {@code Retry-After: 1}, no rate limit headers.
   */
  public ClientSees isBusy(String limit, String instance) {
    assertThat(status).as("status").isEqualTo(503);
    assertThat(header.apply("Retry-After")).as("Retry-After").isEqualTo("1");
    isProblemJson();
    hasNoRateLimitHeaders();
    assertThat(body).isEqualTo("{\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
        + "\"detail\":\"Rate limit '" + limit + "' can't be checked now: too many decisions are waiting for its store; "
        + "retry in 1 s\",\"instance\":\"" + instance + "\",\"limit\":\"" + limit + "\",\"retryAfter\":1}");
    return this;
  }

  private void isProblemJson() {
    assertThat(header.apply("Content-Type")).as("Content-Type").startsWith("application/problem+json");
  }
}
