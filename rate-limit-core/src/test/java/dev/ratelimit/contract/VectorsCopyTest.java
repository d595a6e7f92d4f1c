package dev.ratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The test-jar carries a copy of {@code shared/vectors/} so every store's tests can run them;
 * where the shared folder sits next to the checkout (as in CI), the copy must equal it. Scenarios
 * of this repository's own (the settlements' {@code take} and {@code refund} ops, docs/design.md
 * §9) sit beside the copy, listed in {@code scenarios-local.txt}: the shared files stay exactly
 * as shared, and {@link Vectors} replays both lists.
 */
class VectorsCopyTest {
  private static final Path COPY = Path.of("src/test/resources/vectors");

  @Test
  void copy_equalsTheSharedVectors_andOnlyLocalScenariosAreAdded() throws IOException {
    Path shared = Path.of(System.getProperty("vectors.dir", "../../shared/vectors"));
    assumeTrue(Files.isDirectory(shared), "no shared vectors at " + shared.toAbsolutePath());
    List<String> sharedFiles = names(shared);
    assertThat(names(COPY)).as("copy of " + shared).containsAll(sharedFiles);
    for (String name : sharedFiles) {
      assertThat(Files.readString(COPY.resolve(name))).as(name).isEqualTo(Files.readString(shared.resolve(name)));
    }
    assertThat(Files.readAllLines(COPY.resolve("scenarios.txt"))).as("scenarios.txt lists every shared scenario")
        .containsExactlyInAnyOrderElementsOf(scenarios(sharedFiles));
    List<String> added = new ArrayList<>(names(COPY));
    added.removeAll(sharedFiles);
    List<String> local = Files.readAllLines(COPY.resolve("scenarios-local.txt"));
    List<String> expected = new ArrayList<>(List.of("scenarios-local.txt"));
    if (!sharedFiles.contains("scenarios.txt")) {
      expected.add("scenarios.txt");
    }
    for (String scenario : local) {
      expected.addAll(List.of(scenario + ".limits", scenario + ".in.jsonl", scenario + ".expected.jsonl"));
    }
    assertThat(added).as("files beside the shared ones: the local scenarios and their list")
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void everyScenario_isListedOnce_withItsThreeFiles() throws IOException {
    List<String> listed = new ArrayList<>(Files.readAllLines(COPY.resolve("scenarios.txt")));
    listed.addAll(Files.readAllLines(COPY.resolve("scenarios-local.txt")));
    List<String> files = names(COPY);
    assertThat(listed).as("scenarios.txt and scenarios-local.txt").doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(scenarios(files));
    for (String scenario : listed) {
      assertThat(files).contains(scenario + ".in.jsonl", scenario + ".expected.jsonl");
    }
  }

  private static List<String> scenarios(List<String> files) {
    return files.stream().filter(n -> n.endsWith(".limits"))
        .map(n -> n.substring(0, n.length() - ".limits".length())).sorted().toList();
  }

  private static List<String> names(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
