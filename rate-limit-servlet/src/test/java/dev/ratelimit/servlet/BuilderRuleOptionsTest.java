package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The builder's per-rule options (the rule line's own parsing is tested in rate-limit-http's RuleLineTest). */
class BuilderRuleOptionsTest {

  @Test
  void builder_methodsAndChargeOnNeedARuleFirst() {
    assertThatThrownBy(() -> RateLimitFilter.builder().methods("POST"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("add a rule first");
    assertThatThrownBy(() -> RateLimitFilter.builder().chargeOn("4xx"))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("add a rule first");
  }
}
