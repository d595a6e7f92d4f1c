package dev.ratelimit.servlet.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.http.contract.ClientSees;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What an HTTP client sees from the filter in a real container, configured by real
 * {@code web.xml} files: one container per class, one web application per configuration
 * ({@code /limited}, {@code /proxied}, {@code /forwarded}, {@code /real-ip}, {@code /untrusted},
 * {@code /broken}, {@code /trusts-all}, {@code /closed}, {@code /paid}, {@code /costed}).
 * Tests share nothing but the container: each uses its own keys, or its own path's limit.
 * Limits refill over an hour, so nothing refills while a test runs, and nothing sleeps.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ContainerContract {
  static final List<String> WEBAPPS =
      List.of("limited", "proxied", "forwarded", "real-ip", "untrusted", "broken", "trusts-all", "closed", "paid",
          "costed");
  private static final AtomicInteger CALLS = new AtomicInteger();

  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private String base;
  private int port;

  /** Starts the container on a free loopback port with each web application at {@code /NAME}; returns the port. */
  abstract int start(Path webapps) throws Exception;

  abstract void stop() throws Exception;

  @BeforeAll
  void startContainer() throws Exception {
    Path webapps;
    try {
      webapps = Path.of(ContainerContract.class.getResource("/webapps").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    port = start(webapps);
    base = "http://127.0.0.1:" + port;
  }

  @AfterAll
  void stopContainer() throws Exception {
    stop();
  }

  HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), headers);
  }

  HttpResponse<String> post(String path, String form, String... headers) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)), headers);
  }

  private HttpResponse<String> send(HttpRequest.Builder request, String... headers)
      throws IOException, InterruptedException {
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The response as the shared expectations of every front end read it. */
  static ClientSees seen(HttpResponse<String> response) {
    return new ClientSees(response.statusCode(), name -> header(response, name), response.body());
  }

  static String header(HttpResponse<?> response, String name) {
    Optional<String> value = response.headers().firstValue(name);
    return value.orElse(null);
  }

  @Test
  void admitsExactlyCapacityByAddressThenAnswers429() throws Exception {
    for (int remaining = 3; remaining >= 0; remaining--) {
      HttpResponse<String> admitted = get("/limited/ip/x");
      assertThat(admitted.statusCode()).isEqualTo(200);
      assertThat(admitted.body()).isEqualTo("hello /ip/x");
      seen(admitted).hasRateLimitHeaders("by-ip", 4, 3600, remaining, (4 - remaining) * 900);
    }
    seen(get("/limited/ip/x")).hasRateLimitHeaders("by-ip", 4, 3600, 0, 3600).isRateLimited("by-ip", 900, "/limited/ip/x");
  }

  @Test
  void keysAreIsolated() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(get("/limited/api/a", "X-Api-Key", "alice").statusCode()).isEqualTo(200);
    }
    assertThat(get("/limited/api/a", "X-Api-Key", "alice").statusCode()).isEqualTo(429);
    HttpResponse<String> bob = get("/limited/api/a", "X-Api-Key", "bob");
    assertThat(bob.statusCode()).isEqualTo(200);
    assertThat(header(bob, "X-RateLimit-Remaining")).isEqualTo("2");
  }

  @Test
  void requestsMatchingNoRuleHaveNoHeaders() throws Exception {
    HttpResponse<String> response = get("/limited/static/app.js");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().map().keySet()).noneMatch(name -> name.toLowerCase().contains("ratelimit"));
  }

  @Test
  void missingKeyIsDeniedWith400() throws Exception {
    seen(get("/limited/api/a")).isMissingKey("api", "header:X-Api-Key", "/limited/api/a");
  }

  @Test
  void formParameterKeysLeaveTheFormToTheServlet() throws Exception {
    assertThat(post("/limited/login", "user=carol").body()).isEqualTo("hello /login carol");
    assertThat(header(post("/limited/login", "user=carol"), "X-RateLimit-Remaining")).isEqualTo("0");
    assertThat(post("/limited/login", "user=carol").statusCode()).isEqualTo(429);
    assertThat(post("/limited/login", "user=dave").statusCode()).isEqualTo(200);
  }

  @Test
  void severalRulesApplyAllOrNothing() throws Exception {
    HttpResponse<String> first = get("/limited/multi/x", "X-Api-Key", "erin");
    assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"wide\";q=100;w=3600, \"burst\";q=2;w=3600");
    assertThat(header(first, "RateLimit")).isEqualTo("\"wide\";r=99;t=36, \"burst\";r=1;t=1800");
    assertThat(header(first, "X-RateLimit-Limit")).isEqualTo("2");
    get("/limited/multi/x", "X-Api-Key", "erin");
    HttpResponse<String> denied = get("/limited/multi/x", "X-Api-Key", "erin");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"limit\":\"burst\"");
    // the denial took nothing from "wide"
    assertThat(header(denied, "RateLimit")).isEqualTo("\"wide\";r=98;t=72, \"burst\";r=0;t=3600");
  }

  @Test
  void chargeOn_keepsTheChargeOnlyForCountingStatuses_refundingTheOthers() throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(get("/limited/status/200", "X-Client", "c1").statusCode()).as("refunded").isEqualTo(200);
      assertThat(get("/limited/status/403", "X-Client", "c1").statusCode()).as("not a counting status").isEqualTo(403);
    }
    assertThat(get("/limited/status/401", "X-Client", "c1").statusCode()).isEqualTo(401);
    HttpResponse<String> second = get("/limited/status/503", "X-Client", "c1");
    assertThat(second.statusCode()).isEqualTo(503);
    assertThat(header(second, "X-RateLimit-Remaining")).as("charged up front").isEqualTo("0");
    HttpResponse<String> denied = get("/limited/status/200", "X-Client", "c1");
    assertThat(denied.statusCode()).as("two failures counted").isEqualTo(429);
    assertThat(denied.body()).contains("\"limit\":\"failures\"");
  }

  @Test
  void chargeOn_settlesAsyncRequestsOnCompletion_andCommittedResponsesByTheirStatus() throws Exception {
    for (int i = 0; i < 4; i++) {
      assertThat(get("/limited/status/async/200", "X-Client", "c2").body()).isEqualTo("status 200");
      assertThat(get("/limited/status/committed/204", "X-Client", "c2").statusCode()).isEqualTo(204);
    }
    assertThat(get("/limited/status/async/401", "X-Client", "c2").statusCode()).isEqualTo(401);
    assertThat(get("/limited/status/committed/500", "X-Client", "c2").statusCode()).isEqualTo(500);
    assertThat(get("/limited/status/200", "X-Client", "c2").statusCode()).isEqualTo(429);
  }

  /**
   * A client sends a request, the servlet starts its slow check, the client hangs up (a reset),
   * then the servlet answers 401 into the closed connection; returns when the request is over.
   */
  void hangUp(String path, String client) throws Exception {
    String id = getClass().getSimpleName() + "-" + CALLS.incrementAndGet();
    Held held = Held.expect(id);
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: " + client
          + "\r\nX-Call: " + id + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      held.awaitEntered();
      socket.setSoLinger(true, 0); // closed with a reset: gone at once, as a client that is killed
    }
    held.release();
    held.awaitFinished();
  }

  @Test
  void chargeOn_aClientThatHangsUpAfterTheServletStarted_isCharged() throws Exception {
    hangUp("/paid/held/sync", "gone-sync");
    hangUp("/paid/held/sync", "gone-sync");
    HttpResponse<String> next = get("/paid/held/now", "X-Client", "gone-sync");
    assertThat(next.statusCode()).as("two checks ran, two charged").isEqualTo(429);
    assertThat(next.body()).contains("\"limit\":\"logins\"");
  }

  @Test
  void chargeOn_aClientThatHangsUpAfterAnAsyncServletStarted_isCharged() throws Exception {
    hangUp("/paid/held/async", "gone-async");
    hangUp("/paid/held/async", "gone-async");
    assertThat(get("/paid/held/now", "X-Client", "gone-async").statusCode()).isEqualTo(429);
  }

  @Test
  void costHeader_aClientThatHangsUpAfterTheServletStarted_isChargedTheEstimate() throws Exception {
    hangUp("/paid/metered/sync", "gone-metered");
    hangUp("/paid/metered/sync", "gone-metered");
    assertThat(get("/paid/held/now", "X-Client", "gone-metered").statusCode()).isEqualTo(429);
  }

  @Test
  void refundCancelled_aClientThatHangsUpIsRefunded_evenAfterTheServletStarted() throws Exception {
    for (int i = 0; i < 3; i++) {
      hangUp("/paid/refunding/sync", "refunded-sync");
    }
    HttpResponse<String> next = get("/paid/refunding/now", "X-Client", "refunded-sync");
    assertThat(next.statusCode()).isEqualTo(200);
    assertThat(header(next, "X-RateLimit-Remaining")).as("only this request's own charge").isEqualTo("1");
  }

  /**
   * A request to the costed application that returns once the rate limit filter settled it
   * (the finished filter outside it says so).
   */
  HttpResponse<String> costed(String path, String client) throws Exception {
    String id = getClass().getSimpleName() + "-" + CALLS.incrementAndGet();
    Held held = Held.expect(id);
    HttpResponse<String> response = get("/costed" + path, "X-Client", client, "X-Call", id);
    held.awaitFinished();
    return response;
  }

  /** The client's units left: a request stating no cost shows them less its estimate of 100, then gives those back. */
  long tokensLeft(String client) throws Exception {
    HttpResponse<String> probe = costed("/stated/sync/probe?tokens=0", client);
    assertThat(probe.statusCode()).isEqualTo(200);
    return Long.parseLong(header(probe, "X-RateLimit-Remaining")) + 100;
  }

  @Test
  void costHeader_settlesEachRequestWithTheCostItStates_andTheClientNeverSeesTheHeader() throws Exception {
    HttpResponse<String> first = costed("/stated/sync/x?tokens=30", "t1");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("cost stated");
    assertThat(header(first, "X-RateLimit-Remaining")).as("the estimate, charged up front").isEqualTo("99900");
    assertThat(header(first, "X-Tokens")).as("taken out of the response").isNull();
    assertThat(tokensLeft("t1")).isEqualTo(100_000 - 30);
    assertThat(header(costed("/stated/sync/x?tokens=250.5", "t1"), "X-Tokens")).isNull();
    assertThat(header(costed("/stated/int/x?tokens=7", "t1"), "X-Tokens")).isNull();
    assertThat(tokensLeft("t1")).as("250.5 and 7 more: floored to whole units").isEqualTo(100_000 - 30 - 258);
  }

  @Test
  void costHeader_asyncRequest_isSettledWhenItCompletes_andACommittedOneByWhatItStatedFirst() throws Exception {
    HttpResponse<String> async = costed("/stated/async/x?tokens=40", "t2");
    assertThat(async.body()).isEqualTo("cost stated");
    assertThat(header(async, "X-Tokens")).isNull();
    HttpResponse<String> flushed = costed("/stated/flushed/x?tokens=60", "t2");
    assertThat(header(flushed, "X-Tokens")).as("caught as set, before the commit sent the headers").isNull();
    assertThat(tokensLeft("t2")).isEqualTo(100_000 - 100);
  }

  @Test
  void costHeader_statedAroundTheFilter_throughTheContainersOwnResponse_stillSettles() throws Exception {
    HttpResponse<String> around = costed("/stated/around/x?tokens=5", "t3");
    assertThat(around.body()).isEqualTo("cost stated");
    assertThat(header(around, "X-Tokens")).as("written around the filter: it reaches the client").isEqualTo("5");
    assertThat(tokensLeft("t3")).isEqualTo(100_000 - 5);
  }

  @Test
  void costHeaderPass_leavesTheHeaderToTheClient() throws Exception {
    HttpResponse<String> passed = costed("/passed/sync/x?tokens=12", "t4");
    assertThat(header(passed, "X-Tokens")).isEqualTo("12");
    assertThat(tokensLeft("t4")).isEqualTo(100_000 - 12);
  }

  @Test
  void costHeaderWithChargeOn_aStatusThatDoesNotCountRefundsEverything() throws Exception {
    HttpResponse<String> failed = costed("/success/sync/x?tokens=70&status=503", "t5");
    assertThat(failed.statusCode()).isEqualTo(503);
    assertThat(header(failed, "X-Tokens")).as("its name matched in any case").isNull();
    assertThat(tokensLeft("t5")).isEqualTo(100_000);
    costed("/success/async/x?tokens=70", "t5");
    assertThat(tokensLeft("t5")).isEqualTo(100_000 - 70);
  }

  /** What no application means as a cost: each keeps the estimate, the request answers as the servlet did. */
  @Test
  void costHeader_valuesThatAreNoCost_keepTheEstimate_neverA500() throws Exception {
    List<String> queries = List.of("", "tokens=-1", "tokens=NaN", "tokens=1e309", "tokens=Infinity", "tokens=ten",
        "tokens=1&tokens=2", "tokens=0x10", "tokens=%2B5", "huge=100000", "tokens=%0D%0AX-Forged:%201");
    for (String query : queries) {
      HttpResponse<String> response = costed("/stated/sync/x?" + query, "t6");
      assertThat(response.statusCode()).as(query).isEqualTo(200);
      assertThat(header(response, "X-Tokens")).as(query).isNull();
      assertThat(header(response, "X-Forged")).as(query).isNull();
    }
    assertThat(tokensLeft("t6")).isEqualTo(100_000 - 100L * queries.size());
  }

  /** Clients at once, each request stating its own cost, sync and async: exactly capacity − Σ stated costs. */
  @Test
  void costHeader_concurrentClients_endAtExactlyCapacityMinusTheStatedCosts() throws Exception {
    java.util.concurrent.atomic.AtomicLong stated = new java.util.concurrent.atomic.AtomicLong();
    dev.ratelimit.contract.Concurrently.run(6, () -> {
      Random random = new Random();
      for (int i = 0; i < 20; i++) {
        int tokens = random.nextInt(300);
        stated.addAndGet(tokens);
        HttpResponse<String> response = costed("/stated/" + (i % 2 == 0 ? "sync" : "async") + "/x?tokens=" + tokens,
            "t7");
        assertThat(response.statusCode()).isEqualTo(200);
      }
      return null;
    });
    assertThat(tokensLeft("t7")).isEqualTo(100_000 - stated.get());
  }

  @Test
  void methods_limitOnlyTheListedMethods() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> read = get("/limited/writes/x", "X-Client", "m1");
      assertThat(read.statusCode()).isEqualTo(200);
      assertThat(read.headers().map().keySet()).noneMatch(name -> name.toLowerCase().contains("ratelimit"));
    }
    assertThat(post("/limited/writes/x", "a=1", "X-Client", "m1").statusCode()).isEqualTo(200);
    assertThat(post("/limited/writes/x", "a=1", "X-Client", "m1").statusCode()).isEqualTo(429);
    assertThat(get("/limited/writes/x", "X-Client", "m1").statusCode()).isEqualTo(200);
  }

  @Test
  void shadowLimit_neverDenies_andSendsNoRateLimitHeaders() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = get("/limited/watched/x", "X-Client", "s1");
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(header(response, "Retry-After")).isNull();
      assertThat(response.headers().map().keySet()).noneMatch(name -> name.toLowerCase().contains("ratelimit"));
    }
  }

  @Test
  void keyResolverClassNamedInWebXml() throws Exception {
    assertThat(get("/limited/tenant/x", "X-Tenant", "acme").statusCode()).isEqualTo(200);
    assertThat(get("/limited/tenant/x", "X-Tenant", "acme").statusCode()).isEqualTo(429);
    assertThat(get("/limited/tenant/x", "X-Tenant", "globex").statusCode()).isEqualTo(200);
    assertThat(get("/limited/tenant/x").body())
        .contains("\"key\":\"dev.ratelimit.servlet.it.TenantHeaderKey\"");
  }

  @Test
  void countsOnceThroughAForward() throws Exception {
    assertCountedOnce("/limited/dispatch/forward", "forward-client", "target FORWARD");
  }

  @Test
  void countsOnceThroughAnInclude() throws Exception {
    assertCountedOnce("/limited/dispatch/include", "include-client", "include:target INCLUDE");
  }

  @Test
  void countsOnceThroughAnErrorPage() throws Exception {
    assertCountedOnce("/limited/dispatch/error", "error-client", "oops ERROR");
  }

  @Test
  void countsOnceThroughAnAsyncDispatch() throws Exception {
    assertCountedOnce("/limited/dispatch/async", "async-client", "target ASYNC");
  }

  /** A request that goes through a second dispatch costs one unit: the next plain request sees 98 of 100 left. */
  private void assertCountedOnce(String path, String client, String body) throws Exception {
    HttpResponse<String> dispatched = get(path, "X-Client", client);
    assertThat(dispatched.body()).isEqualTo(body);
    HttpResponse<String> next = get("/limited/dispatch/target", "X-Client", client);
    assertThat(next.body()).isEqualTo("target REQUEST");
    assertThat(header(next, "X-RateLimit-Remaining")).isEqualTo("98");
  }

  @Test
  void trustedProxyForwardsTheClientAddress() throws Exception {
    HttpResponse<String> first = get("/proxied/", "X-Forwarded-For", "203.0.113.10");
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(header(first, "RateLimit-Policy")).as("the short form's limit is named after the filter")
        .isEqualTo("\"rate-limit\";q=2;w=3600");
    // what the client wrote left of the address the proxy saw is ignored: the same bucket
    assertThat(header(get("/proxied/", "X-Forwarded-For", "1.1.1.1, 203.0.113.10"), "X-RateLimit-Remaining")).isEqualTo("0");
    assertThat(get("/proxied/", "X-Forwarded-For", "9.9.9.9, 203.0.113.10").statusCode()).isEqualTo(429);
    // another client behind the same proxy has its own bucket; trusted hops are skipped from the right
    assertThat(get("/proxied/", "X-Forwarded-For", "203.0.113.11, 10.1.1.1").statusCode()).isEqualTo(200);
    assertThat(header(get("/proxied/", "X-Forwarded-For", "203.0.113.11"), "X-RateLimit-Remaining")).isEqualTo("0");
  }

  @Test
  void trustedProxyForwardedHeaderGroupsIpv6By64() throws Exception {
    String first = "for=\"[2001:db8:aa:bb::1]:4711\";proto=https";
    String second = "for=\"[2001:db8:aa:bb:ffff::2]\"";
    assertThat(get("/forwarded/", "Forwarded", first).statusCode()).isEqualTo(200);
    assertThat(header(get("/forwarded/", "Forwarded", second), "X-RateLimit-Remaining")).isEqualTo("0");
    assertThat(get("/forwarded/", "Forwarded", first).statusCode()).isEqualTo(429);
    assertThat(get("/forwarded/", "Forwarded", "for=\"[2001:db8:aa:bc::1]\"").statusCode()).isEqualTo(200);
  }

  @Test
  void trustedProxyMalformedHeadersNeverChooseTheKey() throws Exception {
    // each bad value stops the walk at the proxy itself: all of them share 127.0.0.1's bucket
    assertThat(get("/proxied/", "X-Forwarded-For", "203.0.113.99, not-an-address").statusCode()).isEqualTo(200);
    assertThat(get("/proxied/", "X-Forwarded-For", "203.0.113.98, [2001:db8::1").statusCode()).isEqualTo(200);
    HttpResponse<String> third = get("/proxied/", "X-Forwarded-For", "203.0.113.97, unknown");
    assertThat(third.statusCode()).isEqualTo(429);
  }

  @Test
  void trustedProxyMalformedForwardedNeverChoosesTheKey() throws Exception {
    assertThat(get("/forwarded/", "Forwarded", "for=203.0.113.98;x=\"unterminated").statusCode()).isEqualTo(200);
    assertThat(get("/forwarded/", "Forwarded", "for=203.0.113.97, for=_hidden").statusCode()).isEqualTo(200);
    assertThat(get("/forwarded/", "Forwarded", "for=203.0.113.96;for=203.0.113.95").statusCode()).isEqualTo(429);
  }

  /**
   * What a default nginx forwards: the client's own X-Forwarded-For with the peer appended
   * ({@code $proxy_add_x_forwarded_for}), and the client's {@code Forwarded} and
   * {@code X-Real-IP} passed through. 300 requests, each spoofing another address: one bucket.
   */
  @Test
  void nginxStyleRequestsAreOneClientWhateverTheClientWrites() throws Exception {
    assertOneBucketOf300("/proxied/", spoofed -> new String[] {"X-Forwarded-For", spoofed + ", 203.0.113.9",
        "Forwarded", "for=" + spoofed, "X-Real-IP", spoofed});
  }

  @Test
  void forwardedProxyIgnoresTheClientsXForwardedFor() throws Exception {
    assertOneBucketOf300("/forwarded/", spoofed -> new String[] {"Forwarded", "for=" + spoofed + ", for=203.0.113.20",
        "X-Forwarded-For", spoofed, "X-Real-IP", spoofed});
  }

  @Test
  void realIpProxyIgnoresEveryOtherHeader() throws Exception {
    assertOneBucketOf300("/real-ip/", spoofed -> new String[] {"X-Real-IP", "203.0.113.30",
        "X-Forwarded-For", spoofed, "Forwarded", "for=" + spoofed});
  }

  /** Each request spoofs a fresh address in {@code headers}; the limit (2 per hour) admits exactly 2 of them. */
  private void assertOneBucketOf300(String path, Function<String, String[]> headers) throws Exception {
    Random random = new Random(path.hashCode());
    int admitted = 0;
    for (int i = 0; i < 300; i++) {
      String spoofed = random.nextBoolean()
          ? (1 + random.nextInt(223)) + "." + random.nextInt(256) + "." + random.nextInt(256) + "." + random.nextInt(256)
          : "[2001:db8:" + Integer.toHexString(random.nextInt(0x10000)) + "::" + Integer.toHexString(1 + random.nextInt(0xffff)) + "]";
      HttpResponse<String> response = get(path, headers.apply(spoofed));
      assertThat(response.statusCode()).isIn(200, 429);
      admitted += response.statusCode() == 200 ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(2);
  }

  @Test
  void trustedProxiesCoveringEveryAddressStopTheApplicationFromServing() throws Exception {
    HttpResponse<String> response = get("/trusts-all/", "X-Forwarded-For", "203.0.113.40");
    assertThat(response.statusCode()).isEqualTo(expectedStatusOfAnApplicationThatFailedToStart());
    assertThat(response.body()).doesNotContain("hello");
  }

  @Test
  void keyOptionsMakeSpellingsOfOneUserOneBucket() throws Exception {
    // the container decodes the query; lower|trim makes these one name
    List<String> spellings = List.of("alice", "Alice", "%20alice", "alice%20", "alice%00", "%09ALICE", "+alice+");
    int admitted = 0;
    for (String user : spellings) {
      HttpResponse<String> response = get("/limited/signin?user=" + user);
      assertThat(response.statusCode()).as(user).isIn(200, 429);
      admitted += response.statusCode() == 200 ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(2);
  }

  @Test
  void withoutKeyOptionsSpellingsOfOneUserAreApart() throws Exception {
    for (String user : List.of("zed", "Zed", "%20zed", "zed%20", "zed%00", "%09ZED")) {
      assertThat(get("/limited/login?user=" + user).statusCode()).as(user).isEqualTo(200);
    }
  }

  @Test
  void spoofedForwardedForFromAnUntrustedPeerIsIgnored() throws Exception {
    assertThat(get("/untrusted/", "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
    assertThat(get("/untrusted/", "X-Forwarded-For", "198.51.100.2", "Forwarded", "for=198.51.100.3").statusCode())
        .isEqualTo(200);
    HttpResponse<String> denied = get("/untrusted/", "X-Forwarded-For", "198.51.100.4");
    assertThat(denied.statusCode()).isEqualTo(429);
    assertThat(denied.body()).contains("\"limit\":\"api\"");
  }

  @Test
  void badInitParamStopsTheApplicationFromServing() throws Exception {
    HttpResponse<String> response = get("/broken/");
    assertThat(response.statusCode()).isEqualTo(expectedStatusOfAnApplicationThatFailedToStart());
    assertThat(response.body()).doesNotContain("hello");
  }

  /** Jetty answers 503 for an application whose filter failed to start (docs/design.md §6). */
  int expectedStatusOfAnApplicationThatFailedToStart() {
    return 503;
  }

  @Test
  void storeUnavailableWithClosedPolicyAnswers503() throws Exception {
    seen(get("/closed/x")).isStoreUnavailable("api", "/closed/x");
  }
}
