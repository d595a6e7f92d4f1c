package dev.ratelimit.servlet.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.scan.StandardJarScanner;

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
}
