package dev.ratelimit.example.launcher;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Serves the example's WAR on embedded Jetty 12 (ee10), exactly as built: the filter and its
 * configuration come from the WAR's {@code WEB-INF}. {@code java -jar servlet-webapp-launcher.jar
 * [PORT] [HOST]}; defaults 8080 on 127.0.0.1; port 0 picks a free one.
 */
public final class Launcher {
  private Launcher() {}

  public static void main(String[] args) throws Exception {
    int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
    String host = args.length > 1 ? args[1] : "127.0.0.1";
    Server server = start(host, port, war());
    System.out.println("servlet-webapp: serving " + war() + " at " + url(server) + " (Ctrl-C stops it)");
    System.out.println("  curl -i " + url(server) + "api/hello");
    System.out.println("  curl -i -d user=alice " + url(server) + "login");
    server.join();
  }

  /** Starts Jetty with the WAR at the root context. */
  public static Server start(String host, int port, Path war) throws Exception {
    if (!Files.isRegularFile(war)) {
      throw new IllegalStateException(war + " not found: build it first (mvn -pl examples/servlet-webapp -am package)");
    }
    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    WebAppContext webapp = new WebAppContext();
    webapp.setContextPath("/");
    webapp.setWar(war.toString());
    // a filter that fails to start must stop the server, not leave the application unlimited
    webapp.setThrowUnavailableOnStartupException(true);
    server.setHandler(webapp);
    server.setStopAtShutdown(true);
    server.start();
    return server;
  }

  /** The WAR beside this class's jar (or its classes directory): target/servlet-webapp.war. */
  public static Path war() throws URISyntaxException {
    Path here = Path.of(Launcher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return here.resolveSibling("servlet-webapp.war");
  }

  public static String url(Server server) {
    ServerConnector connector = (ServerConnector) server.getConnectors()[0];
    String host = connector.getHost().contains(":") ? "[" + connector.getHost() + "]" : connector.getHost();
    return "http://" + host + ":" + connector.getLocalPort() + "/";
  }
}
