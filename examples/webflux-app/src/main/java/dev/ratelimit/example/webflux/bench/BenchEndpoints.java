package dev.ratelimit.example.webflux.bench;

import org.springframework.context.annotation.Profile;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The two targets of {@code examples/webflux-app/bench}, only in the {@code bench} profile: the
 * same trivial handler, {@code /with} behind a filter rule (application-bench.yml) and
 * {@code /without} matched by none, so that the only difference between them is the filter.
 */
@RestController
@Profile("bench")
public class BenchEndpoints {

  @GetMapping("/with")
  public Mono<String> with() {
    return Mono.just("ok\n");
  }

  @GetMapping("/without")
  public Mono<String> without() {
    return Mono.just("ok\n");
  }
}
