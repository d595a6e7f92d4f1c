package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * On a real Jetty: the request view's IPv4 text is Jetty's own {@code getRemoteAddr}, and only on
 * Jetty's own request (a wrapper reads the servlet API as before); the response view finds the
 * headers the servlet API finds.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JettyPeerIT {
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  /** No Jetty type in a field's signature: failsafe's run without Jetty scans this class too. */
  private final List<Object> servers = new ArrayList<>();
  private int port;

  @BeforeAll
  void startJetty() throws Exception {
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler("/");
    context.addServlet(new ServletHolder(new Peer()), "/*");
    server.setHandler(context);
    servers.add(server);
    server.start();
    port = connector.getLocalPort();
  }

  @AfterAll
  void stopJetty() throws Exception {
    for (Object server : servers) {
      ((Server) server).stop();
    }
  }

  @Test
  void ipv4PeerTextIsJettysOwn() throws Exception {
    assertThat(get("/own")).isEqualTo("127.0.0.1 127.0.0.1 127.0.0.1");
    assertThat(get("/own")).isEqualTo("127.0.0.1 127.0.0.1 127.0.0.1");
  }

  /** The response view's lookup under Jetty's wrappers sees what the servlet API sees, by any case of the name. */
  @Test
  void responseViewSeesTheHeadersSet() throws Exception {
    assertThat(get("/headers")).isEqualTo("false false true true true false");
  }

  @Test
  void wrappedRequestReadsTheServletApi() throws Exception {
    assertThat(get("/wrapped")).isEqualTo("null 127.0.0.1 127.0.0.1");
  }

  private String get(String path) throws Exception {
    HttpResponse<String> response = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .build(), HttpResponse.BodyHandlers.ofString());
    return response.body();
  }

  /** Answers the IPv4 text kept for the request (null: none), the servlet API's address, and the key the filter's {@code ip} uses. */
  static final class Peer extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      if (request.getPathInfo().equals("/headers")) {
        JettyResponseView view = new JettyResponseView(response);
        String before = view.containsHeader("X-RateLimit-Limit") + " " + response.containsHeader("X-RateLimit-Limit");
        response.addHeader("X-RateLimit-Limit", "10");
        String after = view.containsHeader("X-RateLimit-Limit") + " " + view.containsHeader("x-ratelimit-limit") + " "
            + response.containsHeader("X-RateLimit-Limit") + " " + view.containsHeader("RateLimit");
        response.setContentType("text/plain");
        response.getWriter().write(before + " " + after);
        return;
      }
      HttpServletRequest seen = request.getPathInfo().equals("/wrapped") ? new HttpServletRequestWrapper(request) : request;
      ServletRequestView view = ServletRequestView.of(seen);
      String key = dev.ratelimit.http.TrustedProxies.direct().key(view);
      response.setContentType("text/plain");
      String kept = seen.getClass() == JettyClasses.REQUEST ? JettyPeer.ipv4(seen) : null;
      response.getWriter().write(kept + " " + seen.getRemoteAddr() + " " + key);
    }
  }
}
