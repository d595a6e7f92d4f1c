package dev.ratelimit.webflux;

import dev.ratelimit.http.contract.ClientSees;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real HTTP client on loopback, and its responses as the shared expectations read them. */
final class Http {
  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private final String base;

  Http(int port) {
    this.base = "http://127.0.0.1:" + port;
  }

  HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), headers);
  }

  HttpResponse<String> post(String path, String form, String... headers) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)), headers);
  }

  /** A request with this method and no body. */
  HttpResponse<String> send(String method, String path, String... headers) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).method(method, HttpRequest.BodyPublishers.noBody()),
        headers);
  }

  private HttpResponse<String> send(HttpRequest.Builder request, String... headers)
      throws IOException, InterruptedException {
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static ClientSees seen(HttpResponse<String> response) {
    return new ClientSees(response.statusCode(), name -> response.headers().firstValue(name).orElse(null),
        response.body());
  }
}
