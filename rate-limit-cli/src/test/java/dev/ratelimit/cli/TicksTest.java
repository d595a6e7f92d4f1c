package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class TicksTest {

  @Test
  void between_picksRoundStepsWithinTheRange() {
    assertThat(Ticks.between(0, 10, 5).values()).containsExactly(0.0, 2.0, 4.0, 6.0, 8.0, 10.0);
    assertThat(Ticks.between(0, 59.8, 8).values()).containsExactly(0.0, 10.0, 20.0, 30.0, 40.0, 50.0);
    assertThat(Ticks.between(0, 3, 5).values()).containsExactly(0.0, 1.0, 2.0, 3.0);
    assertThat(Ticks.between(0, 1, 5).values()).containsExactly(0.0, 0.2, 0.4, 0.6, 0.8, 1.0);
  }

  @Test
  void covering_extendsToTheTicksAroundTheRange() {
    assertThat(Ticks.covering(-4, 10, 5).values()).containsExactly(-5.0, 0.0, 5.0, 10.0);
    assertThat(Ticks.covering(0, 7, 5).values()).containsExactly(0.0, 2.0, 4.0, 6.0, 8.0);
  }

  @Test
  void label_usesTheDecimalsOfTheStep() {
    Ticks tenths = Ticks.between(0, 0.5, 5);

    assertThat(tenths.values()).hasSize(6);
    assertThat(tenths.values().stream().map(tenths::label).toList())
        .isEqualTo(List.of("0.0", "0.1", "0.2", "0.3", "0.4", "0.5"));
    assertThat(Ticks.between(-10, 10, 4).label(-0.0)).isEqualTo("0");
  }

  @Test
  void timeUnit_fitsTheSpan() {
    assertThat(Ticks.TimeUnit.forSpan(40).symbol()).isEqualTo("ms");
    assertThat(Ticks.TimeUnit.forSpan(2_999).symbol()).isEqualTo("ms");
    assertThat(Ticks.TimeUnit.forSpan(60_000).symbol()).isEqualTo("s");
    assertThat(Ticks.TimeUnit.forSpan(600_000).symbol()).isEqualTo("min");
    assertThat(Ticks.TimeUnit.forSpan(86_400_000).symbol()).isEqualTo("h");
    assertThat(Ticks.TimeUnit.forSpan(30 * 86_400_000L).symbol()).isEqualTo("d");
  }
}
