package dev.ratelimit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The test-jar carries a copy of {@code shared/vectors/} so every store's tests can run them;
 * where the shared folder sits next to the checkout (as in CI), the copy must equal it.
 */
class VectorsCopyTest {
  private static final Path COPY = Path.of("src/test/resources/vectors");

  @Test
  void copy_equalsTheSharedVectors() throws IOException {
    Path shared = Path.of(System.getProperty("vectors.dir", "../../shared/vectors"));
    assumeTrue(Files.isDirectory(shared), "no shared vectors at " + shared.toAbsolutePath());
    List<String> sharedFiles = names(shared);
    assertThat(names(COPY)).as("copy of " + shared).containsAll(sharedFiles);
    for (String name : sharedFiles) {
      assertThat(Files.readString(COPY.resolve(name))).as(name).isEqualTo(Files.readString(shared.resolve(name)));
    }
    List<String> scenarios = sharedFiles.stream().filter(n -> n.endsWith(".limits"))
        .map(n -> n.substring(0, n.length() - ".limits".length())).sorted().toList();
    assertThat(Files.readAllLines(COPY.resolve("scenarios.txt"))).as("scenarios.txt lists every scenario")
        .containsExactlyInAnyOrderElementsOf(scenarios);
  }

  private static List<String> names(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }
}
