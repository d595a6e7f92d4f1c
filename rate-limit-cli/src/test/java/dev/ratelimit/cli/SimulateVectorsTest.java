package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.contract.Vectors;
import dev.ratelimit.contract.Vectors.Scenario;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every conformance vector, through {@code ratelimit simulate} as a user would run it. */
class SimulateVectorsTest {

  static List<Scenario> scenarios() {
    return Vectors.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void simulate_reproducesVector(Scenario scenario) {
    List<String> args = new ArrayList<>(List.of("simulate"));
    for (String limit : scenario.limits()) {
      args.add("--limit");
      args.add(limit);
    }

    CliRun run = CliRun.run(String.join("\n", scenario.input()) + "\n", args.toArray(String[]::new));

    assertThat(run.exitCode()).as(run.stderr()).isZero();
    Vectors.assertMatches(scenario, run.lines());
  }
}
