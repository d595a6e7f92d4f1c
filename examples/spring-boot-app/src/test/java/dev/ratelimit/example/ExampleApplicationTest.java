package dev.ratelimit.example;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The demo's tests on a random port, in the test's JVM. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ExampleApplicationTest extends ExampleOverHttp {
  @LocalServerPort
  int port;

  @Override
  int port() {
    return port;
  }
}
