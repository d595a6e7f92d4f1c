package dev.ratelimit.webflux;

import static dev.ratelimit.webflux.Http.seen;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.FailurePolicy;
import dev.ratelimit.ManualClock;
import dev.ratelimit.contract.SwitchableStore;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The filter from its builder, without Spring Boot, in front of a WebFlux handler on a real
 * Reactor Netty server on a free loopback port: the refusals the Boot tests don't reach
 * ({@code missing-key=deny}, a closed store), and a peer that is no trusted proxy.
 */
class RateLimitWebFilterIT {
  private DisposableServer server;

  /** Starts the filter in front of a handler that answers {@code hello PATH}; returns the client. */
  private Http serve(RateLimitWebFilter filter) {
    HttpHandler handler = WebHttpHandlerBuilder.webHandler(exchange -> exchange.getResponse().writeWith(Mono.fromSupplier(
            () -> exchange.getResponse().bufferFactory().wrap(("hello " + exchange.getRequest().getPath().value())
                .getBytes(StandardCharsets.UTF_8)))))
        .filter(filter).build();
    server = HttpServer.create().bindAddress(() -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .handle(new ReactorHttpHandlerAdapter(handler)).bindNow();
    return new Http(server.port());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.disposeNow();
    }
  }

  @Test
  void missingKeyDeny_answers400WithTheSharedBodyBeforeCharging() throws Exception {
    Http http = serve(RateLimitWebFilter.builder().clock(new ManualClock(0))
        .limit("login", "token-bucket rate=2 period=1h")
        .rule("/login", "login", "param:user", 1).missingKey("deny").build());
    seen(http.get("/login")).isMissingKey("login", "param:user", "/login");
    seen(http.get("/login?user=ann")).hasRateLimitHeaders("login", 2, 3600, 1, 1800);
  }

  @Test
  void closedStoreDown_answers503WithTheSharedBody() throws Exception {
    Http http = serve(RateLimitWebFilter.builder().store(SwitchableStore.unavailable()).storeFailure(FailurePolicy.CLOSED)
        .limit("api", "token-bucket rate=2 period=1h").rule("/api/**", "api").build());
    seen(http.get("/api/x")).isStoreUnavailable("api", "/api/x");
  }

  @Test
  void untrustedPeer_forwardedHeadersAreIgnored() throws Exception {
    // the proxies trusted are elsewhere: the loopback peer is the client, whatever it writes
    Http http = serve(RateLimitWebFilter.builder().clock(new ManualClock(0))
        .limit("api", "token-bucket rate=2 period=1h").rule("/**", "api").trustedProxies("10.0.0.0/8").build());
    assertThat(http.get("/a", "X-Forwarded-For", "198.51.100.1").statusCode()).isEqualTo(200);
    assertThat(http.get("/a", "X-Forwarded-For", "198.51.100.2").statusCode()).isEqualTo(200);
    seen(http.get("/a", "X-Forwarded-For", "198.51.100.3")).isRateLimited("api", 1800, "/a");
  }

  @Test
  void builder_refusesWhatTheServletBuilderRefuses() {
    assertThatThrownBy(() -> RateLimitWebFilter.builder().limit("api", "10/1m").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no rules");
    assertThatThrownBy(() -> RateLimitWebFilter.builder().limit("api", "10/1m").rule("/**", "nope").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rule '/** nope': unknown limit 'nope'; configured limits: api");
    assertThatThrownBy(() -> RateLimitWebFilter.builder().limit("api", "10/1m").rule("/**", "api", "cookie:x", 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("rule '/** api': unknown key kind 'cookie:x'; allowed: ip, header:NAME, principal, param:NAME, or"
            + " a SpEL expression #{...} over #exchange and #request");
    assertThatThrownBy(() -> RateLimitWebFilter.builder().limit("api", "10/1m").rule("/**", "api")
        .trustedProxies("0.0.0.0/0").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trust-all-proxies=true");
  }

  @Test
  void spelKey_namingAVariableOrABeanThatIsNotThere_isRefusedByTheBuilder() {
    // #principal is no variable of a SpEL key here: it would be null on every request, one global bucket
    assertThatThrownBy(() -> RateLimitWebFilter.builder().limit("api", "10/1m").rule("/**", "api", "#{#principal}", 1)
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key '#{#principal}' names #principal, which is not a variable here;"
            + " the variables: #exchange, #request");
    assertThatThrownBy(() -> RateLimitWebFilter.builder().limit("api", "10/1m")
        .rule("/**", "api", "#{@tenants.of(#request.headers.getFirst('X-Api-Key'))}", 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names the bean @tenants, and the builder has no bean factory");
    StaticListableBeanFactory beans = new StaticListableBeanFactory();
    beans.addBean("tenants", new Object());
    assertThatThrownBy(() -> RateLimitWebFilter.builder().limit("api", "10/1m").beanFactory(beans)
        .rule("/**", "api", "#{@tenant.of(#request)}", 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names the bean @tenant, and there is no bean of that name");
    assertThat(RateLimitWebFilter.builder().limit("api", "10/1m").beanFactory(beans)
        .rule("/**", "api", "#{@tenants.toString() + #request.path + #exchange.attributes.size() + #root}", 1).build())
        .isNotNull();
  }
}
