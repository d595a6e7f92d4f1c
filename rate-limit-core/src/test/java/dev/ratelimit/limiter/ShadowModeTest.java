package dev.ratelimit.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.ratelimit.Decision;
import dev.ratelimit.DecisionListener;
import dev.ratelimit.FailurePolicy;
import dev.ratelimit.InvalidLimitSpecException;
import dev.ratelimit.Limit;
import dev.ratelimit.LimitMode;
import dev.ratelimit.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code mode=shadow}: computed and charged as if enforced, never denying. */
class ShadowModeTest {
  private final ManualClock clock = new ManualClock(1_767_225_600_000L);

  /** Decisions as the listener heard them, with the shadow flag. */
  record Heard(String limit, boolean allowed, double remaining, boolean shadowDenied) {}

  static final class Recorder implements DecisionListener {
    final List<Heard> heard = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void onDecision(String limit, Decision decision, FailurePolicy fallback) {
      throw new AssertionError("the four-argument method is the one called");
    }

    @Override
    public void onDecision(String limit, Decision decision, FailurePolicy fallback, boolean shadowDenied) {
      heard.add(new Heard(limit, decision.allowed(), decision.remaining(), shadowDenied));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"token-bucket rate=3 period=1m", "gcra rate=3 period=1m", "fixed-window rate=3 period=1m",
      "sliding-window rate=3 period=1m", "sliding-log rate=3 period=1m", "quota rate=3 cadence=day"})
  void shadow_neverDeniesButChargesAsIfEnforced(String spec) {
    Limit shadow = Limit.parse(spec + " mode=shadow");
    assertThat(shadow.mode()).isEqualTo(LimitMode.SHADOW);
    assertThat(shadow.toString()).isEqualTo(spec + " mode=shadow");
    assertThat(Limit.parse(spec).mode()).isEqualTo(LimitMode.ENFORCE);
    assertThat(Limit.parse(spec + " mode=enforce")).isEqualTo(Limit.parse(spec));
    Recorder recorder = new Recorder();
    RateLimiter limiter = RateLimiter.builder().clock(clock).listener(recorder).limit("l", shadow).build();

    for (int i = 0; i < 5; i++) {
      Decision decision = limiter.named("l").limit("k", 1);
      assertThat(decision.allowed()).isTrue();
      assertThat(decision.retryAfterMillis()).isZero();
    }
    assertThat(limiter.named("l").check("k", 1).allowed()).isTrue();
    assertThat(limiter.named("l").check("k", 0).remaining()).as("charged as if enforced: 3 taken, 2 denials took nothing")
        .isCloseTo(0, within(1e-9));
    assertThat(recorder.heard).extracting(Heard::shadowDenied)
        .containsExactly(false, false, false, true, true, true, false);
    assertThat(recorder.heard).extracting(Heard::allowed).containsOnly(true);
  }

  @Test
  void shadow_isNeverDeniedWithoutAListenerEither_andAsyncToo() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("l", "fixed-window rate=1 period=1m mode=shadow").build();
    assertThat(limiter.named("l").limit("k", 1).allowed()).isTrue();
    assertThat(limiter.named("l").limit("k", 1).allowed()).isTrue();
    assertThat(limiter.named("l").limitAsync("k", 1).toCompletableFuture().join().allowed()).isTrue();
    assertThat(limiter.named("l").reserve("k", 1).retryAfterMillis()).as("a shadow limit makes nobody wait").isZero();
  }

  @Test
  void shadow_parameterRejectsOtherModes() {
    assertThatThrownBy(() -> Limit.parse("10/1m mode=dry-run"))
        .isInstanceOf(InvalidLimitSpecException.class)
        .hasMessage("bad value 'dry-run' for mode in \"10/1m mode=dry-run\": allowed: enforce, shadow");
  }

  @Test
  void shadow_inAnAllOrNothingCall_neverDeniesTheOthers_andIsChargedOnlyWhenTheyAdmit() {
    Recorder recorder = new Recorder();
    RateLimiter limiter = RateLimiter.builder().clock(clock).listener(recorder)
        .limit("hard", "fixed-window rate=2 period=1m")
        .limit("soft", "fixed-window rate=1 period=1m mode=shadow").build();
    List<NamedLimiter.Call> calls = List.of(limiter.named("hard").call("k"), limiter.named("soft").call("k"));

    assertThat(limiter.limitAll(calls).allowed()).isTrue();
    assertThat(limiter.limitAll(calls).allowed()).as("the shadow limit would deny; the call is admitted").isTrue();
    assertThat(limiter.named("hard").check("k", 0).remaining()).as("the enforced limit was charged twice").isZero();
    assertThat(limiter.limitAllAsync(calls).toCompletableFuture().join().allowed()).as("hard denies").isFalse();
    assertThat(recorder.heard.stream().filter(h -> h.limit().equals("soft") && h.shadowDenied()).count()).isEqualTo(2);
  }

  @Test
  void shadowLog_logsAtMostOncePerMinute() {
    ShadowLog log = new ShadowLog(clock);
    assertThat(log.claim()).isTrue();
    assertThat(log.claim()).isFalse();
    clock.advance(Duration.ofSeconds(59));
    assertThat(log.claim()).isFalse();
    clock.advance(Duration.ofSeconds(1));
    assertThat(log.claim()).isTrue();
    assertThat(log.claim()).isFalse();
  }

  @Test
  void shadow_switchedToEnforceAtRuntime_keepsEveryKeysState() {
    RateLimiter limiter = RateLimiter.builder().clock(clock).limit("l", "token-bucket rate=3 period=1h mode=shadow").build();
    limiter.named("l").limit("k", 3);
    assertThat(limiter.named("l").limit("k", 1).allowed()).isTrue();
    limiter.named("l").replace("token-bucket rate=3 period=1h");
    assertThat(limiter.named("l").limit("k", 1).allowed()).as("enforced now, on the state the shadow limit built").isFalse();
  }
}
