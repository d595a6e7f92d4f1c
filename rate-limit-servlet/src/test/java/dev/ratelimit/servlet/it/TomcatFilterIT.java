package dev.ratelimit.servlet.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.junit.jupiter.api.Test;

/** The filter in Tomcat 11, each web application deployed from its web.xml. */
class TomcatFilterIT extends ContainerContract {
  /** Kept, so that the level holds: Tomcat logs every start and stop at INFO. */
  private static final Logger TOMCAT_LOG = Logger.getLogger("org.apache");

  private Tomcat tomcat;

  @Override
  int start(Path webapps) throws Exception {
    TOMCAT_LOG.setLevel(Level.WARNING);
    tomcat = new Tomcat();
    tomcat.setBaseDir(Files.createTempDirectory("tomcat").toString());
    tomcat.setPort(0);
    tomcat.getConnector().setProperty("address", "127.0.0.1");
    // no JSP servlet (Jasper is not here) and no default servlet: the web.xml files map "/" themselves
    tomcat.setAddDefaultWebXmlToWebapp(false);
    for (String name : WEBAPPS) {
      StandardContext context = (StandardContext) tomcat.addWebapp("/" + name, webapps.resolve(name).toString());
      // leak detection on stop needs --add-opens; it would only warn that it can't run
      context.setClearReferencesThreadLocals(false);
      context.setClearReferencesRmiTargets(false);
      StandardJarScanner scanner = new StandardJarScanner();
      // nothing to find in the test class path's jars, and scanning them all takes seconds
      scanner.setScanClassPath(false);
      scanner.setScanManifest(false);
      context.setJarScanner(scanner);
    }
    tomcat.start();
    return tomcat.getConnector().getLocalPort();
  }

  /**
   * Tomcat doesn't map an application that failed to start: its requests find no application
   * and get 404. Either way the application never serves, limited or not.
   */
  @Override
  int expectedStatusOfAnApplicationThatFailedToStart() {
    return 404;
  }

  @Override
  void stop() throws Exception {
    if (tomcat != null) {
      tomcat.stop();
      tomcat.destroy();
    }
  }

  /**
   * Tomcat reports a failed write of an async request to its listeners ({@code onError}): the
   * filter learns there that the client went away after the servlet started.
   */
  @Test
  void chargeOn_anAsyncWriteToAClientGone_reportedByOnError_isCharged() throws Exception {
    hangUp("/paid/held/async-flushed", "reported-async");
    hangUp("/paid/held/async-flushed", "reported-async");
    assertThat(get("/paid/held/now", "X-Client", "reported-async").statusCode()).isEqualTo(429);
  }

  @Test
  void refundCancelled_anAsyncWriteToAClientGone_reportedByOnError_isRefunded() throws Exception {
    for (int i = 0; i < 3; i++) {
      hangUp("/paid/refunding/async-flushed", "refunded-async");
    }
    HttpResponse<String> next = get("/paid/refunding/now", "X-Client", "refunded-async");
    assertThat(next.statusCode()).isEqualTo(200);
    assertThat(header(next, "X-RateLimit-Remaining")).isEqualTo("1");
  }
}
