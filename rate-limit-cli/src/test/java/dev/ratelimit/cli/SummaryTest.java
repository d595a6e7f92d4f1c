package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.Decision;
import dev.ratelimit.Limit;
import dev.ratelimit.internal.LongKeys;
import dev.ratelimit.trace.TraceReplayer.Outcome;
import dev.ratelimit.trace.TraceReplayer.Request;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary's counts per key: exact up to a bound of keys, then approximate and saying so. */
class SummaryTest {
  private static final Map<String, Limit> API = Map.of("api", Limit.parse("token-bucket rate=10 period=1s"));

  private static Outcome decided(String key, boolean allowed) {
    return new Outcome(new Request(0, "api", key, "limit", 1), new Decision(allowed, 0, 10, allowed ? 0 : 100, 100),
        null, "{}");
  }

  private static String printed(Summary summary) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    summary.print(new PrintStream(err, true, StandardCharsets.UTF_8));
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void pastTheBoundOfKeys_countsStayBounded_theHeavyKeyStaysExact_andTheSummarySaysSo() {
    Summary summary = new Summary(API, 4);
    int line = 0;
    for (int i = 0; i < 1000; i++) {
      if (i % 2 == 0) { // a third of the decisions: above 1/4, so always held, and from the start
        summary.add(++line, decided("scraper", i < 40));
      }
      summary.add(++line, decided("noise-" + i, true));
    }
    Summary.Counts counts = summary.limits().get("api");
    assertThat(counts.keys()).isEqualTo(4);
    assertThat(counts.approximate()).isTrue();
    assertThat(counts.requests("scraper")).isEqualTo(500);
    assertThat(counts.denied("scraper")).isEqualTo(480);
    assertThat(counts.busiestKeys(1)).containsExactly("scraper");
    assertThat(counts.shortBy()).isPositive().isLessThanOrEqualTo(1500 / 4);
    assertThat(printed(summary)).isEqualTo("""
        ratelimit simulate: 1500 lines
          api (token-bucket rate=10 period=1s): 1020 admitted, 480 denied
            most denied: scraper 480
            more than 4 keys: counts per key are approximate, each at most %d short
          error lines: 0
        """.formatted(counts.shortBy()));
  }

  @Test
  void belowTheBound_countsAreExact_andNothingIsSaidOfIt() {
    Summary summary = new Summary(API, 4);
    summary.add(1, decided("a", true));
    summary.add(2, decided("a", false));
    summary.add(3, decided("b", true));
    Summary.Counts counts = summary.limits().get("api");
    assertThat(counts.approximate()).isFalse();
    assertThat(counts.shortBy()).isZero();
    assertThat(counts.keys()).isEqualTo(2);
    assertThat(printed(summary)).doesNotContain("approximate");
  }

  @Test
  void keys_areCountedAsTheLimiterBoundsThem() {
    Summary summary = new Summary(API);
    String longKey = "k".repeat(1_000_000);
    summary.add(1, decided(longKey, false));
    Summary.Counts counts = summary.limits().get("api");
    assertThat(counts.denied(longKey)).isEqualTo(1);
    assertThat(counts.mostDenied(1)).containsExactly(Map.entry(LongKeys.bounded(longKey), 1));
    assertThat(printed(summary)).contains("most denied: " + LongKeys.bounded(longKey) + " 1\n");
  }
}
