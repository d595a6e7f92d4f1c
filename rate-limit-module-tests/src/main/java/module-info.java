/**
 * An application module, as a user writes one: it requires every library module and uses each
 * one's exported API ({@link dev.ratelimit.moduletests.ModuleUser}). Compiled on the module path,
 * so an export a library module lacks fails this compilation; its tests run in this module and
 * check the opens Spring needs and the packages it must not see.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.ratelimit.moduletests {
  requires dev.ratelimit.core;
  requires dev.ratelimit.http;
  requires dev.ratelimit.servlet;
  requires dev.ratelimit.redis;
  requires dev.ratelimit.bucket4j;
  requires dev.ratelimit.spring;
  requires dev.ratelimit.spring.boot3;
  requires dev.ratelimit.webflux;
  requires dev.ratelimit.gateway;
  requires dev.ratelimit.cli;
  requires spring.boot;
  requires spring.boot.autoconfigure;

  // as an application opens its own configuration to Spring
  opens dev.ratelimit.moduletests;
}
