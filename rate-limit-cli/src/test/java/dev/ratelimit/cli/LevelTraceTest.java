package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.ManualClock;
import dev.ratelimit.cli.LevelTrace.Mark;
import dev.ratelimit.cli.LevelTrace.Panel;
import dev.ratelimit.cli.LevelTrace.Point;
import dev.ratelimit.cli.LevelTrace.Series;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class LevelTraceTest {

  @Test
  void panels_sampleTheRefillBetweenRequests() throws IOException {
    // 1 unit per second, capacity 2; 100 px over 1 s: one sample every 10 ms
    List<Panel> panels = panels("""
        {"t": 0, "key": "k"}
        {"t": 0, "key": "k"}
        {"t": 1000, "key": "k"}
        """, 100, "api=token-bucket rate=1 period=1s capacity=2");

    Series series = panels.get(0).series().get(0);
    assertThat(series.levels()).startsWith(new Point(0, 2), new Point(0, 1), new Point(0, 0), new Point(10, 0.01))
        .contains(new Point(500, 0.5))
        .endsWith(new Point(990, 0.99), new Point(1000, 1), new Point(1000, 0))
        .hasSize(3 + 100 + 1);
    assertThat(series.marks()).containsExactly(new Mark(0, 1, true), new Mark(0, 0, true), new Mark(1000, 0, true));
  }

  @Test
  void panels_sampleOnlyWhenTimeMovesForward() throws IOException {
    List<Panel> panels = panels("""
        {"t": 1000, "key": "k"}
        {"t": 0, "key": "k"}
        """, 100, "api=token-bucket rate=1 period=1s capacity=2");

    assertThat(panels.get(0).series().get(0).levels())
        .containsExactly(new Point(1000, 2), new Point(1000, 1), new Point(0, 0));
  }

  /** A settlement moves the level, drawn as such, but is no request: no dot, no cross. */
  @Test
  void panels_drawASettlementsLevelWithoutAMark() throws IOException {
    List<Panel> panels = panels("""
        {"t": 0, "key": "k", "count": 1}
        {"t": 0, "key": "k", "op": "take", "count": 2}
        {"t": 0, "key": "k", "op": "refund", "count": 3}
        """, 100, "api=token-bucket rate=1 period=1s capacity=2");

    Series series = panels.get(0).series().get(0);
    assertThat(series.levels()).containsExactly(new Point(0, 2), new Point(0, 1), new Point(0, -1), new Point(0, 2));
    assertThat(series.marks()).containsExactly(new Mark(0, 1, true));
  }

  @Test
  void panels_showAResetAsAFullKey() throws IOException {
    List<Panel> panels = panels("""
        {"t": 0, "key": "k", "count": 2}
        {"t": 0, "key": "k", "op": "reset"}
        """, 100, "api=token-bucket rate=1 period=1h capacity=2");

    assertThat(panels.get(0).series().get(0).levels())
        .containsExactly(new Point(0, 2), new Point(0, 0), new Point(0, 2));
  }

  @Test
  void panels_pickTheBusiestKeysOfLimitsThatSawRequests() throws IOException {
    List<Panel> panels = panels("""
        {"t": 0, "limit": "b", "key": "x"}
        {"t": 0, "limit": "b", "key": "y"}
        {"t": 0, "limit": "b", "key": "y"}
        {"t": 0, "limit": "b", "key": "z", "count": -1}
        """, 100, "a=10/1m", "b=10/1m");

    assertThat(panels).extracting(Panel::name).containsExactly("b");
    assertThat(panels.get(0).series()).extracting(Series::key).containsExactly("y", "x");
    assertThat(panels.get(0).keys()).isEqualTo(2);
  }

  private static List<Panel> panels(String trace, int widthPx, String... limits) throws IOException {
    String[] args = new String[limits.length * 2];
    for (int i = 0; i < limits.length; i++) {
      args[2 * i] = "--limit";
      args[2 * i + 1] = limits[i];
    }
    SimulateOptions options = SimulateOptions.parse(List.of(args));
    ManualClock clock = new ManualClock();
    Simulation.Result result = new Simulation(options.newLimiter(clock), clock)
        .run(new BufferedReader(new StringReader(trace)), new StringWriter(), true);
    return LevelTrace.panels(options, result, widthPx);
  }
}
