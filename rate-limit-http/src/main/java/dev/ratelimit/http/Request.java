package dev.ratelimit.http;

import java.security.Principal;
import java.util.List;

/**
 * The request as the rules and keys read it: what each front end (the servlet filter, the
 * WebFlux filter, the gateway) adapts its own request to. Everything is read on demand, so a
 * request no rule needs the path of is never asked for it.
 */
public interface Request {

  String method();

  /** The path within the application, decoded and normalised by the server; {@code /} when empty. */
  String path();

  /** The first value of a header, or null. */
  String header(String name);

  /** Every line of a header, in order; empty when absent. */
  List<String> headers(String name);

  /** A query (or form) parameter, or null. */
  String param(String name);

  /** The peer's address as the server gives it (an IP literal, IPv6 perhaps bracketed), or null. */
  String peerAddress();

  /** The authenticated user's name, or null. */
  String principal();

  /**
   * The authenticated user as the front end has it (with Spring Security, its
   * {@code Authentication}), or null: for a front end's own expressions that read more than the
   * name, such as the user's authorities. Null unless the front end gives it.
   */
  default Principal user() {
    return null;
  }

  /** The front end's own request ({@code HttpServletRequest}, {@code ServerWebExchange}), for its own keys. */
  Object unwrap();
}
