package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.contract.LinkCheck;
import dev.ratelimit.http.Request;
import dev.ratelimit.servlet.RateLimitFilter;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.util.ClassUtils;

/**
 * Every Spring member that rate-limit-spring, rate-limit-servlet, rate-limit-http and (on Boot 3)
 * rate-limit-spring-boot3 call exists on the Spring this test runs with: Boot 4.0 in this module,
 * Boot 3.5 and 4.1 in compat/ (docs/design.md §7.5). A call only one line has would fail there on
 * the first request that runs it, tested or not.
 */
class SpringApiLinksTest {

  @Test
  void theSpringModules_callOnlyWhatThisSpringLineHas() throws Exception {
    Set<String> missing = new TreeSet<>();
    for (Class<?> module : new Class<?>[] {RateLimitAutoConfiguration.class, RateLimitFilter.class, Request.class}) {
      missing.addAll(LinkCheck.unresolved(module, "org/springframework/", Set.of()));
    }
    String boot3 = "dev.ratelimit.spring.boot3.RateLimitBoot3AutoConfiguration";
    if (ClassUtils.isPresent(boot3, getClass().getClassLoader())) {
      missing.addAll(LinkCheck.unresolved(ClassUtils.forName(boot3, getClass().getClassLoader()), "org/springframework/",
          Set.of()));
    }
    assertThat(missing).isEmpty();
  }
}
