package dev.ratelimit.servlet.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.store.InMemoryStore;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Eviction never gives units back, over HTTP: a flood of distinct keys through the filter in Jetty makes the
 * in-memory store evict, and eviction must not give an exhausted login its units back, whether
 * the flood is on another limit or on the login limit itself. Each test runs its own Jetty and
 * store, on a frozen {@link ManualClock}: nothing refills, so a victim's login admitted after
 * its five is a bypass. {@code InMemoryStoreEvictionTest} has the same claims in process.
 */
class EvictionOverHttpIT {
  private static final long START = 1_767_225_600_000L; // 2026-01-01T00:00Z: a quota day starts
  /** Requests in flight at once: enough to keep both cores busy, few enough to bound the store's overshoot. */
  private static final int IN_FLIGHT = 16;
  /** The victim's login attempts after each flood: every one must be refused. */
  private static final int TRIES = 20;

  private final ManualClock clock = new ManualClock(START);
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private Server server;
  private String base;

  @AfterEach
  void stopJetty() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  /**
   * The case: the victim's login bucket is the key fresh soonest (15 minutes, against a
   * day for the quota's keys), so the hand evicts it each time it passes (about every
   * maxKeys / 8 new keys); the store that forgot it admitted the victim again at the next probe.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void crossLimitFlood_doesNotFreeAnExhaustedLogin() throws Exception {
    int maxKeys = 2_000;
    InMemoryStore store = startJetty(maxKeys);
    exhaustVictim(180);

    int floodKeys = 3 * maxKeys;
    int probeEvery = 200;
    List<HttpRequest> requests = new ArrayList<>();
    for (int i = 0; i < floodKeys; i++) {
      requests.add(api("flood-" + i));
      if (i % probeEvery == probeEvery - 1) {
        requests.add(victimLogin());
      }
    }
    List<HttpResponse<String>> responses = sendAll(requests);

    int admittedFlood = 0;
    int probes = 0;
    for (int i = 0; i < requests.size(); i++) {
      HttpResponse<String> response = responses.get(i);
      if (requests.get(i).uri().getPath().equals("/login")) {
        probes++;
        assertThat(response.statusCode()).as("victim probe %d during the flood", probes).isEqualTo(429);
      } else {
        // each api key is new and asks for 1 of its 1000 a day: admitted, whatever the sketch
        // charges it (a few units at most, never its whole quota)
        assertThat(response.statusCode()).as("flood request %s", requests.get(i).uri()).isEqualTo(200);
        assertThat(Integer.parseInt(ContainerContract.header(response, "X-RateLimit-Remaining")))
            .isBetween(0, 999);
        admittedFlood++;
      }
    }
    assertThat(admittedFlood).as("distinct api keys admitted once each").isEqualTo(floodKeys);
    assertThat(probes).isEqualTo(floodKeys / probeEvery);
    assertThat(store.size()).as("keys held after %d distinct keys", floodKeys + 1)
        .isLessThanOrEqualTo(maxKeys + IN_FLIGHT);

    assertVictimRefused("180"); // the login sketch holds the victim alone: exact
  }

  /**
   * An attacker exhausts each of many login users of their own. The victim, exhausted a minute
   * earlier, is fresh soonest, so the hand evicts it when it passes; it must come back exhausted,
   * as its own state (Retry-After 120 s) or a flood user's sharing its cells (exhausted a minute
   * later: 180 s), never less. Once the sketch covers most cells, new users start exhausted and
   * are not stored, so evictions stop: the flood's later users are refused outright.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void sameLimitFlood_ofExhaustedUsers_doesNotFreeAnOlderOne() throws Exception {
    int maxKeys = 300; // each flood user costs 5 requests, so fewer keys than across limits
    InMemoryStore store = startJetty(maxKeys);
    exhaustVictim(180);
    clock.advanceMillis(60_000); // a third of a unit back: 120 s to the next
    assertThat(ContainerContract.header(send(victimLogin()), "Retry-After")).isEqualTo("120");

    int users = 4 * maxKeys;
    int probeEvery = 50;
    List<HttpRequest> requests = new ArrayList<>();
    for (int u = 0; u < users; u++) {
      for (int i = 0; i < 5; i++) {
        requests.add(login("attacker-" + u));
      }
      if (u % probeEvery == probeEvery - 1) {
        requests.add(victimLogin());
      }
    }
    List<HttpResponse<String>> responses = sendAll(requests);

    int[] admitted = new int[users];
    int probes = 0;
    for (int i = 0; i < requests.size(); i++) {
      HttpResponse<String> response = responses.get(i);
      String user = requests.get(i).uri().getQuery().substring("user=".length());
      if (user.equals("victim")) {
        probes++;
        assertThat(response.statusCode()).as("victim probe %d during the flood", probes).isEqualTo(429);
      } else {
        assertThat(response.statusCode()).as("%s", requests.get(i).uri()).isIn(200, 429);
        if (response.statusCode() == 200) {
          admitted[Integer.parseInt(user.substring("attacker-".length()))]++;
        }
      }
    }
    assertThat(probes).isEqualTo(users / probeEvery);
    // no user gets more than its 5; the users sent before the store could be full (the victim,
    // the users before, and those in flight) get exactly 5: no eviction had yet happened
    int beforeFull = maxKeys - 1 - IN_FLIGHT;
    int stored = 1; // the victim, and each user admitted at least once (a refused new key is not stored)
    for (int u = 0; u < users; u++) {
      assertThat(admitted[u]).as("logins admitted to attacker-%d", u).isBetween(0, 5);
      if (u < beforeFull) {
        assertThat(admitted[u]).as("logins admitted to attacker-%d", u).isEqualTo(5);
      }
      stored += admitted[u] > 0 ? 1 : 0;
    }
    // more keys were stored than are held: the store evicted
    assertThat(stored).isGreaterThan(maxKeys + IN_FLIGHT);
    assertThat(store.size()).as("keys held after %d stored", stored).isLessThanOrEqualTo(maxKeys + IN_FLIGHT);

    assertVictimRefused("120", "180");
  }

  /** Five logins admitted, the sixth refused, with the wait of an exhausted bucket. */
  private void exhaustVictim(int retryAfter) throws Exception {
    for (int i = 0; i < 5; i++) {
      assertThat(send(victimLogin()).statusCode()).as("victim login %d", i + 1).isEqualTo(200);
    }
    HttpResponse<String> sixth = send(victimLogin());
    assertThat(sixth.statusCode()).isEqualTo(429);
    assertThat(ContainerContract.header(sixth, "Retry-After")).isEqualTo(Integer.toString(retryAfter));
  }

  /** Zero admitted of {@link #TRIES}, each asked to wait one of {@code retryAfter} seconds. */
  private void assertVictimRefused(String... retryAfter) throws Exception {
    int admitted = 0;
    for (int i = 0; i < TRIES; i++) {
      HttpResponse<String> response = send(victimLogin());
      admitted += response.statusCode() == 200 ? 1 : 0;
      assertThat(response.statusCode()).as("victim try %d after the flood", i + 1).isIn(200, 429);
      if (response.statusCode() == 429) {
        assertThat(ContainerContract.header(response, "Retry-After")).isIn((Object[]) retryAfter);
      }
    }
    assertThat(admitted).as("victim logins admitted after the flood, of %d", TRIES).isZero();
  }

  /** Jetty 12 (ee10) on a free loopback port, the filter built in code on a bounded in-memory store. */
  private InMemoryStore startJetty(int maxKeys) throws Exception {
    InMemoryStore store = new InMemoryStore(clock, maxKeys);
    RateLimiter limiter = RateLimiter.builder().clock(clock).store(store)
        .limit("login", "token-bucket rate=5 period=15m")
        .limit("api", "quota rate=1000 cadence=day").build();
    RateLimitFilter filter = RateLimitFilter.builder().limiter(limiter)
        .rule("/login", "login", "param:user", 1)
        .rule("/api/*", "api", "header:X-Api-Key", 1)
        .build();
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler("/");
    context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(HelloServlet.class, "/");
    server.setHandler(context);
    server.start();
    base = "http://127.0.0.1:" + connector.getLocalPort();
    return store;
  }

  private HttpRequest victimLogin() {
    return login("victim");
  }

  private HttpRequest login(String user) {
    return request("/login?user=" + user).build();
  }

  private HttpRequest api(String key) {
    return request("/api/items").header("X-Api-Key", key).build();
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET();
  }

  private HttpResponse<String> send(HttpRequest request) throws Exception {
    return client.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** Sends the requests in order, at most {@link #IN_FLIGHT} at a time; the responses in the same order. */
  private List<HttpResponse<String>> sendAll(List<HttpRequest> requests) throws InterruptedException {
    Semaphore slots = new Semaphore(IN_FLIGHT);
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>(requests.size());
    for (HttpRequest request : requests) {
      slots.acquire();
      responses.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
          .whenComplete((response, failure) -> slots.release()));
    }
    return responses.stream().map(CompletableFuture::join).toList();
  }
}
