package dev.ratelimit.servlet;

import jakarta.servlet.http.HttpServletRequest;

/** A resolver the filter can't make from a class name: it has no public no-argument constructor. */
public class NoDefaultConstructorKey implements KeyResolver {
  private final String key;

  public NoDefaultConstructorKey(String key) {
    this.key = key;
  }

  @Override
  public String resolve(HttpServletRequest request) {
    return key;
  }
}
