package dev.ratelimit.example.gateway;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The upstream the routes send to: a Reactor Netty server on loopback that answers every request
 * with its path and how many requests it has served, so that a client sees which ones reached it.
 */
public final class Backend implements AutoCloseable {
  private final AtomicLong calls = new AtomicLong();
  private final DisposableServer server;

  private Backend(int port) {
    this.server = HttpServer.create().host("127.0.0.1").port(port)
        .handle((request, response) -> {
          long call = calls.incrementAndGet();
          String body = "{\"backend\":\"" + request.fullPath() + "\",\"call\":" + call + "}";
          return response.header("Content-Type", "application/json")
              .sendByteArray(Mono.just(body.getBytes(StandardCharsets.UTF_8)));
        })
        .bindNow();
  }

  static Backend start(int port) {
    return new Backend(port);
  }

  /** Requests that reached the backend. */
  public long calls() {
    return calls.get();
  }

  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.disposeNow();
  }
}
