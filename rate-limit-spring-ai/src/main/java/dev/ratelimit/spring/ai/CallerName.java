package dev.ratelimit.spring.ai;

import dev.ratelimit.spring.AuthenticatedUser;
import java.util.Optional;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Mono;

/**
 * The authenticated user's name for a chat call ({@code #principal}, docs/design.md §7.3): on a
 * blocking call, the thread's ({@link AuthenticatedUser}); on a stream, the subscriber's Reactor
 * context first (a WebFlux application's Spring Security puts it there, and no thread holds it),
 * then the subscribing thread's (a Spring MVC controller subscribes on its request thread).
 */
final class CallerName {
  private static final boolean REACTIVE_SECURITY = ClassUtils.isPresent(
      "org.springframework.security.core.context.ReactiveSecurityContextHolder", CallerName.class.getClassLoader());

  private CallerName() {}

  static String ofThread() {
    return AuthenticatedUser.name();
  }

  /** Empty when nobody is authenticated. */
  static Mono<Optional<String>> ofSubscriber() {
    Mono<Optional<String>> thread = Mono.fromSupplier(() -> Optional.ofNullable(AuthenticatedUser.name()));
    return REACTIVE_SECURITY ? ReactiveSecurity.name().map(Optional::of).switchIfEmpty(thread) : thread;
  }

  /** Loaded only with Spring Security. */
  private static final class ReactiveSecurity {
    /** As {@link AuthenticatedUser}: an anonymous user, or a blank name, is nobody. */
    static Mono<String> name() {
      return org.springframework.security.core.context.ReactiveSecurityContextHolder.getContext()
          .mapNotNull(org.springframework.security.core.context.SecurityContext::getAuthentication)
          .filter(authentication -> authentication.isAuthenticated()
              && !(authentication instanceof org.springframework.security.authentication.AnonymousAuthenticationToken))
          .mapNotNull(org.springframework.security.core.Authentication::getName)
          .filter(name -> !name.isBlank());
    }
  }
}
