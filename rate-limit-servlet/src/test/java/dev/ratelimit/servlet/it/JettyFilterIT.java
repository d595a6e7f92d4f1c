package dev.ratelimit.servlet.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.junit.jupiter.api.Test;

/** The filter in Jetty 12 (ee10), each web application deployed from its web.xml. */
class JettyFilterIT extends ContainerContract {
  private Server server;

  @Override
  int start(Path webapps) throws Exception {
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ContextHandlerCollection contexts = new ContextHandlerCollection();
    for (String name : WEBAPPS) {
      WebAppContext context = new WebAppContext();
      context.setContextPath("/" + name);
      context.setWar(webapps.resolve(name).toString());
      // the filter and the test servlets come from the test class path, not WEB-INF
      context.setParentLoaderPriority(true);
      contexts.addHandler(context);
    }
    server.setHandler(contexts);
    server.start();
    return connector.getLocalPort();
  }

  @Override
  void stop() throws Exception {
    if (server != null) {
      server.stop();
    }
  }

  /**
   * Jetty 12 does not report a failed write of a completed async request to its listeners: the
   * filter never learns that the client had gone, and the status the servlet set counts, even
   * under refund-cancelled.
   */
  @Test
  void refundCancelled_anAsyncAnswerToAClientGone_isSettledByItsStatus() throws Exception {
    hangUp("/paid/refunding/async", "unseen-async");
    hangUp("/paid/refunding/async", "unseen-async");
    assertThat(get("/paid/refunding/now", "X-Client", "unseen-async").statusCode()).isEqualTo(429);
  }
}
