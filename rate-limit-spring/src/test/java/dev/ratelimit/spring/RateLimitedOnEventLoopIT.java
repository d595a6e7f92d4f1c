package dev.ratelimit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.RateLimitExceededException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * A {@code Mono} method first called on a non-blocking thread, with BlockHound installed, as on
 * a WebFlux event loop. Spring forgets its pointcut matches once the context has started, so
 * that first call is where the method is matched again: with the former AspectJ pointcut this
 * read a class file, BlockHound failed the read, Spring took the failure for "no match", and the
 * method ran unlimited for good. Its own JVM (failsafe, no reused forks): BlockHound stays once
 * installed.
 */
class RateLimitedOnEventLoopIT {
  private static final Duration HANG = Duration.ofSeconds(30);
  private static AnnotationConfigApplicationContext context;

  @BeforeAll
  static void start() {
    // loading a class reads its jar: once per class, the JVM's doing, not the call's
    // and Netty 4.2's pooled allocator takes a lock of its own while it grows: Netty's doing
    BlockHound.install(builder -> builder
        .allowBlockingCallsInside(ClassLoader.class.getName(), "loadClass")
        .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines"));
    context = new AnnotationConfigApplicationContext(ReactorLimitingTest.App.class);
  }

  @AfterAll
  static void stop() {
    context.close();
  }

  @Test
  void blockHound_failsABlockingCallOnANonBlockingThread() {
    Mono<String> blocking = Mono.fromCallable(() -> {
      Thread.sleep(1);
      return "not detected";
    }).subscribeOn(Schedulers.parallel());
    StepVerifier.create(blocking).expectError(BlockingOperationError.class).verify(HANG);
  }

  @Test
  void monoMethod_firstCalledOnANonBlockingThread_isLimited() {
    ReactorLimitingTest.Work work = context.getBean(ReactorLimitingTest.Work.class);
    AtomicInteger denied = new AtomicInteger();
    for (int i = 0; i < 3; i++) {
      Mono<String> call = Mono.defer(() -> work.send("ivy")).subscribeOn(Schedulers.parallel())
          .onErrorResume(RateLimitExceededException.class, denial -> {
            denied.incrementAndGet();
            return Mono.just("denied");
          });
      StepVerifier.create(call).expectNextCount(1).expectComplete().verify(HANG);
    }
    assertThat(work.runs()).as("calls that ran").isEqualTo(2);
    assertThat(denied.get()).as("calls denied").isEqualTo(1);
    context.getBean(ManualClock.class).advance(Duration.ofSeconds(30));
    StepVerifier.create(Mono.defer(() -> work.send("ivy")).subscribeOn(Schedulers.parallel()))
        .expectNext("sent 3 for ivy").expectComplete().verify(HANG);
  }
}
