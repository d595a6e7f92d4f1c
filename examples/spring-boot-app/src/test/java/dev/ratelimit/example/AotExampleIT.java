package dev.ratelimit.example;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The demo's tests against the jar the build made, with the classes Spring's AOT processing
 * generated for it ({@code process-aot}, pom.xml) in use: {@code java -Dspring.aot.enabled=true
 * -jar target/spring-boot-app.jar}, as an application headed for a native image runs. Every
 * feature the JVM tests see (filter rules, the principal rule, {@code @RateLimited} with SpEL keys,
 * counts and waits, the 400s, health, meters, the endpoint) is asserted the same way.
 */
class AotExampleIT extends ExampleOverHttp {
  private static final Path JAR = Path.of("target", "spring-boot-app.jar");
  private static final Path LOG = Path.of("target", "aot-example.log");
  private static Process app;
  private static int port;

  @BeforeAll
  static void startTheAotProcessedJar() throws IOException {
    assertThat(JAR).as("the repackaged jar of this build").exists();
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    app = new ProcessBuilder(List.of(java, "-Dspring.aot.enabled=true", "-jar", JAR.toString(),
        "--server.port=" + port, "--server.address=127.0.0.1"))
        .redirectErrorStream(true).redirectOutput(LOG.toFile()).start();
    HttpClient client = HttpClient.newHttpClient();
    HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health")).build();
    // the process starting: a real external event, polled until it answers or dies
    Awaitility.await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).until(() -> {
      assertThat(app.isAlive()).as("the application exited; its output is in " + LOG).isTrue();
      try {
        return client.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
      } catch (IOException notYet) {
        return false;
      }
    });
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (app != null) {
      app.destroy();
      app.waitFor();
    }
  }

  @Override
  int port() {
    return port;
  }

  @Test
  void theApplication_runsOnTheAotGeneratedClasses() throws IOException {
    assertThat(Files.readString(LOG)).contains("Starting AOT-processed ExampleApplication");
  }
}
