package dev.ratelimit.webflux;

import dev.ratelimit.http.Response;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/**
 * A WebFlux response as the shared HTTP contract writes it. A refusal's body is kept until
 * {@link #write()}, which sends it without blocking.
 */
final class ExchangeResponse implements Response {
  private final ServerHttpResponse response;
  private byte[] body;

  ExchangeResponse(ServerHttpResponse response) {
    this.response = response;
  }

  @Override
  public boolean containsHeader(String name) {
    return SpringHeaders.contains(response.getHeaders(), name);
  }

  @Override
  public void addHeader(String name, String value) {
    response.getHeaders().add(name, value);
  }

  @Override
  public void setHeader(String name, String value) {
    response.getHeaders().set(name, value);
  }

  @Override
  public void refuse(int status, String contentType, byte[] body) {
    response.setStatusCode(HttpStatus.valueOf(status));
    HttpHeaders headers = response.getHeaders();
    headers.setContentType(MediaType.parseMediaType(contentType));
    headers.setContentLength(body.length);
    this.body = body;
  }

  /** Sends the refusal's body. */
  Mono<Void> write() {
    return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
  }
}
