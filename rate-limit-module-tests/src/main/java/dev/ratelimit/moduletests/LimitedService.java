package dev.ratelimit.moduletests;

import dev.ratelimit.spring.RateLimited;

/** A bean with a rate-limited method, as an application declares one. */
public class LimitedService {
  @RateLimited(name = "api", key = "#user")
  public String greet(String user) {
    return "hello " + user;
  }
}
