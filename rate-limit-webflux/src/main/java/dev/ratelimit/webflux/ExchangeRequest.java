package dev.ratelimit.webflux;

import dev.ratelimit.http.Request;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.List;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;

/**
 * A WebFlux exchange as the shared HTTP contract reads it. What WebFlux gives only
 * asynchronously, the user and a form body, is read before (and only when a matched rule's key
 * needs it), so that keys resolve without blocking.
 *
 * @param user the user ({@code exchange.getPrincipal()}: with Spring Security, its
 *     {@code Authentication}), or null
 * @param form the form body's fields (WebFlux keeps them for the handler), or null
 */
record ExchangeRequest(ServerWebExchange exchange, Principal user, MultiValueMap<String, String> form)
    implements Request {

  @Override
  public String method() {
    return exchange.getRequest().getMethod().name();
  }

  /** The path within the application as sent (Spring's path patterns decode it when they match). */
  @Override
  public String path() {
    String path = exchange.getRequest().getPath().pathWithinApplication().value();
    return path.isEmpty() ? "/" : path;
  }

  @Override
  public String header(String name) {
    return exchange.getRequest().getHeaders().getFirst(name);
  }

  @Override
  public List<String> headers(String name) {
    return SpringHeaders.values(exchange.getRequest().getHeaders(), name);
  }

  /** A query parameter, else a field of a form body. */
  @Override
  public String param(String name) {
    String value = exchange.getRequest().getQueryParams().getFirst(name);
    return value != null || form == null ? value : form.getFirst(name);
  }

  @Override
  public String peerAddress() {
    InetSocketAddress peer = exchange.getRequest().getRemoteAddress();
    if (peer == null) {
      return null;
    }
    // the literal, never a reverse lookup
    return peer.getAddress() != null ? peer.getAddress().getHostAddress() : peer.getHostString();
  }

  @Override
  public String principal() {
    return user == null ? null : user.getName();
  }

  @Override
  public Object unwrap() {
    return exchange;
  }
}
