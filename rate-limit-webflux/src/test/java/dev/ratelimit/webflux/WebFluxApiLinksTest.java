package dev.ratelimit.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.contract.LinkCheck;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every Spring member rate-limit-webflux calls exists on the Spring this test runs with: Framework
 * 7 in this module, 6.2 and 7 in compat/ (docs/design.md §7.5). {@code SpringHeaders} calls each
 * line's own {@code HttpHeaders} methods on purpose, one of which the other line lacks.
 */
class WebFluxApiLinksTest {

  @Test
  void theWebFluxModule_callsOnlyWhatThisSpringLineHas() throws Exception {
    assertThat(LinkCheck.unresolved(RateLimitWebFilter.class, "org/springframework/", Set.of("SpringHeaders")))
        .isEmpty();
  }
}
