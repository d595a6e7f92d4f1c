package dev.ratelimit.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.contract.LinkCheck;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every Spring (and Spring Cloud Gateway) member rate-limit-gateway calls exists on the class path
 * this test runs with: Gateway 5.0 in this module, 4.3 on Boot 3.5 and 5.0 on Boot 4.1 in compat/
 * (docs/design.md §7.5).
 */
class GatewayApiLinksTest {

  @Test
  void theGatewayModule_callsOnlyWhatThisLineHas() throws Exception {
    assertThat(LinkCheck.unresolved(RateLimitGatewayFilterFactory.class, "org/springframework/", Set.of())).isEmpty();
  }
}
