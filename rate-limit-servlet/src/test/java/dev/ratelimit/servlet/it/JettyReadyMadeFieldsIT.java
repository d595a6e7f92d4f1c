package dev.ratelimit.servlet.it;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.servlet.RateLimitFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.ServletResponseWrapper;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.regex.Pattern;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletApiResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On Jetty's own response the filter adds ready-made fields to Jetty's headers; on a wrapped one
 * it goes through {@code addHeader}. Two Jetty servers with the same filter configuration and
 * frozen clocks, the second behind a filter that wraps the response: the same requests must get
 * byte for byte the same responses (but the {@code Date} line), through admissions, large
 * numbers, several rules and a 429; and the servlet behind each sees which kind of field Jetty
 * holds for each header.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JettyReadyMadeFieldsIT {
  private static final List<String> NAMES =
      List.of("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit");
  private static final Pattern DATE = Pattern.compile("\r\nDate: [^\r]*");

  private final FieldKinds direct = new FieldKinds();
  private final FieldKinds wrapped = new FieldKinds();
  /** No Jetty type in a method's signature: failsafe's run without Jetty scans this class too. */
  private final List<Server> servers = new ArrayList<>();
  private int directServer;
  private int wrappedServer;

  @BeforeAll
  void startJetty() throws Exception {
    directServer = start(direct, false);
    wrappedServer = start(wrapped, true);
  }

  @AfterAll
  void stopJetty() throws Exception {
    for (Server server : servers) {
      server.stop();
    }
  }

  @Test
  void sameBytesWithAndWithoutReadyMadeFields() throws Exception {
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      paths.add("/hour/a"); // 2, 1, 0 left with resets of 1200 s and up, then a 429
    }
    paths.addAll(List.of("/minute/a", "/minute/a", "/big/a", "/big/a", "/both/a", "/both/a", "/both/a",
        "/free/a", "/minute/b"));
    List<String> seen = new ArrayList<>();
    for (String path : paths) {
      String one = withoutDate(get(directServer, path, "same"));
      String other = withoutDate(get(wrappedServer, path, "same"));
      assertThat(one).as(path).isEqualTo(other);
      seen.add(one);
    }
    // and they are the headers of these decisions
    assertThat(seen.get(0)).startsWith("HTTP/1.1 200 ").contains("\r\nX-RateLimit-Limit: 3\r\n"
        + "X-RateLimit-Remaining: 2\r\nX-RateLimit-Reset: 1200\r\n"
        + "RateLimit-Policy: \"hour\";q=3;w=3600\r\nRateLimit: \"hour\";r=2;t=1200\r\n");
    assertThat(seen.get(3)).startsWith("HTTP/1.1 429 ")
        .contains("\r\nX-RateLimit-Remaining: 0\r\n", "\r\nRetry-After: 1200\r\n", "\"limit\":\"hour\"");
    assertThat(seen.get(6)).contains("\r\nX-RateLimit-Limit: 5000\r\nX-RateLimit-Remaining: 4999\r\n"
        + "X-RateLimit-Reset: 1\r\n");
    assertThat(seen.get(8)).contains("\r\nRateLimit-Policy: \"wide\";q=100;w=3600, \"minute\";q=10;w=60\r\n");
    assertThat(seen.get(11)).doesNotContain("RateLimit");
  }

  @Test
  void jettysOwnResponseGetsReadyMadeFields() throws Exception {
    get(directServer, "/minute/c", "c");
    // capacity 10, a few left, full again in seconds: all small numbers, and RateLimit's state kept
    // by limit and units remaining
    assertThat(direct.last).isEqualTo("PPPPP");
    get(directServer, "/big/c", "c");
    // 5000 and 4999 are past the kept numbers: plain fields, as addHeader makes them (RateLimit's r=4999 too)
    assertThat(direct.last).isEqualTo("FFPPF");
    get(directServer, "/both/c", "c");
    // the policy of two rules is a list made per response
    assertThat(direct.last).isEqualTo("PPPFF");
  }

  @Test
  void wrappedResponseGoesThroughAddHeader() throws Exception {
    get(wrappedServer, "/minute/d", "d");
    assertThat(wrapped.last).isEqualTo("FFFFF");
    get(wrappedServer, "/free/d", "d");
    assertThat(wrapped.last).isEqualTo("-----");
  }

  /** Starts a Jetty on a free loopback port; returns the port. */
  private int start(FieldKinds servlet, boolean wrap) throws Exception {
    ManualClock clock = new ManualClock(1_767_225_600_000L);
    RateLimitFilter filter = RateLimitFilter.builder()
        .clock(clock)
        .limit("hour", "token-bucket rate=3 period=1h")
        .limit("minute", "token-bucket rate=10 period=1m")
        .limit("big", "token-bucket rate=5000 period=1s")
        .limit("wide", "token-bucket rate=100 period=1h")
        .rule("/hour/*", "hour", "header:X-Key", 1)
        .rule("/minute/*", "minute", "header:X-Key", 1)
        .rule("/big/*", "big", "header:X-Key", 1)
        .rule("/both/*", "wide", "header:X-Key", 1)
        .rule("/both/*", "minute", "header:X-Key", 1)
        .build();
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler("/");
    if (wrap) {
      context.addFilter(new FilterHolder(new WrappingFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
    }
    context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
    context.addServlet(new ServletHolder(servlet), "/*");
    server.setHandler(context);
    servers.add(server);
    server.start();
    return connector.getLocalPort();
  }

  /**
   * One request on its own connection; the whole response as sent. Each test has its own key
   * (the {@code X-Key} header), so that tests in any order see the same decisions.
   */
  private static String get(int port, String path, String key) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nX-Key: " + key
          + "\r\nConnection: close\r\n\r\n").getBytes(ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream response = new ByteArrayOutputStream();
      in.transferTo(response);
      return response.toString(ISO_8859_1);
    }
  }

  private static String withoutDate(String response) {
    assertThat(response).startsWith("HTTP/1.1 ").contains("\r\n\r\n");
    return DATE.matcher(response).replaceFirst("");
  }

  /** Wraps the response, as a compressing or recording filter would. */
  static final class WrappingFilter extends HttpFilter {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      chain.doFilter(request, new HttpServletResponseWrapper(response));
    }
  }

  /**
   * Answers {@code ok} and notes, per rate limit header, the kind of field Jetty holds: {@code P}
   * pre-encoded, {@code F} any other, {@code -} none.
   */
  static final class FieldKinds extends HttpServlet {
    private static final long serialVersionUID = 1L;
    volatile String last;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      ServletResponse own = response;
      while (own instanceof ServletResponseWrapper wrapper) {
        own = wrapper.getResponse();
      }
      StringBuilder kinds = new StringBuilder();
      for (String name : NAMES) {
        HttpField field = ((ServletApiResponse) own).getResponse().getHeaders().getField(name);
        kinds.append(field == null ? '-' : field instanceof PreEncodedHttpField ? 'P' : 'F');
      }
      last = kinds.toString();
      response.setContentType("text/plain");
      response.getWriter().write("ok\n");
    }
  }
}
