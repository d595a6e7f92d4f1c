package dev.ratelimit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The Space-Saving sketch: exact below its capacity, and its bounds held against exact counts beyond. */
class SpaceSavingTest {

  @Test
  void belowCapacity_countsEveryKeyExactly() {
    SpaceSaving sketch = new SpaceSaving(3);
    sketch.add("a", 2, false);
    sketch.add("b", 1, true);
    sketch.add("a", 0.5, true);
    sketch.add("c", 4, false);
    assertThat(sketch.exact()).isTrue();
    assertThat(sketch.absentBound()).as("a key not held had nothing").isZero();
    assertThat(sketch.get("a")).isEqualTo(new SpaceSaving.Count("a", 2, 0.5, 0, 0));
    assertThat(sketch.get("b")).isEqualTo(new SpaceSaving.Count("b", 0, 1, 0, 1));
    assertThat(sketch.get("c")).isEqualTo(new SpaceSaving.Count("c", 4, 0, 0, 2));
    assertThat(sketch.total()).isEqualTo(7.5);
  }

  @Test
  void aNewKeyWhenFull_replacesTheSmallestCount_inheritingItAsItsError() {
    SpaceSaving sketch = new SpaceSaving(2);
    sketch.add("a", 5, false);
    sketch.add("b", 2, false);
    sketch.add("c", 1, true);
    assertThat(sketch.get("b")).as("the smallest count made room").isNull();
    assertThat(sketch.get("c")).isEqualTo(new SpaceSaving.Count("c", 0, 1, 2, 2));
    assertThat(sketch.get("c").upperBound()).isEqualTo(3);
    assertThat(sketch.absentBound()).as("c's 3 is now the smallest").isEqualTo(3);
    assertThat(sketch.exact()).isFalse();
    assertThat(sketch.size()).isEqualTo(2);
  }

  @Test
  void weightsThatAreNotAboveZero_countNothing() {
    SpaceSaving sketch = new SpaceSaving(1);
    sketch.add("a", 1, false);
    for (double weight : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
      sketch.add("b", weight, false);
    }
    assertThat(sketch.counts()).extracting(SpaceSaving.Count::key).containsExactly("a");
    assertThat(sketch.total()).isEqualTo(1);
  }

  @Test
  void clear_forgetsEverything() {
    SpaceSaving sketch = new SpaceSaving(1);
    sketch.add("a", 1, false);
    sketch.add("b", 1, false);
    sketch.clear();
    assertThat(sketch.counts()).isEmpty();
    assertThat(sketch.total()).isZero();
    assertThat(sketch.exact()).isTrue();
    sketch.add("c", 1, false);
    assertThat(sketch.get("c")).isEqualTo(new SpaceSaving.Count("c", 1, 0, 0, 0));
  }

  @Test
  void capacity_mustBeAtLeastOne() {
    assertThatThrownBy(() -> new SpaceSaving(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("capacity must be at least 1 but was 0");
  }

  @Test
  void aFloodOfDistinctKeys_keepsTheHeavyKeyExactlyAndHoldsOnlyCapacityKeys() {
    SpaceSaving sketch = new SpaceSaving(64);
    for (int i = 0; i < 1_000_000; i++) {
      sketch.add("noise-" + i, 1, false);
      if (i % 10 == 0) {
        sketch.add("heavy", 1, true);
      }
    }
    assertThat(sketch.size()).isEqualTo(64);
    SpaceSaving.Count heavy = sketch.get("heavy");
    assertThat(heavy.denied()).isEqualTo(100_000);
    assertThat(heavy.error()).as("in from the start, never replaced").isZero();
    assertThat(sketch.absentBound()).isLessThanOrEqualTo(sketch.total() / 64);
  }

  /** A stream of weighted keys, some heavier than others. */
  record Add(String key, double weight, boolean denied) {}

  @Provide
  Arbitrary<List<Add>> streams() {
    Arbitrary<String> keys = Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 4).map(i -> "hot-" + i)),
        net.jqwik.api.Tuple.of(7, Arbitraries.integers().between(0, 400).map(i -> "k-" + i)));
    Arbitrary<Double> weights = Arbitraries.of(1.0, 1.0, 1.0, 0.5, 2.0, 10.0);
    return Combinators.combine(keys, weights, Arbitraries.of(true, false)).as(Add::new).list().ofMaxSize(3000);
  }

  @Property(tries = 200)
  void bounds_holdAgainstExactCounts(@ForAll("streams") List<Add> stream, @ForAll("capacities") int capacity) {
    SpaceSaving sketch = new SpaceSaving(capacity);
    Map<String, double[]> exact = new HashMap<>();
    for (Add add : stream) {
      sketch.add(add.key(), add.weight(), add.denied());
      exact.computeIfAbsent(add.key(), k -> new double[2])[add.denied() ? 1 : 0] += add.weight();
    }
    double total = sketch.total();
    assertThat(sketch.size()).isLessThanOrEqualTo(capacity);
    assertThat(sketch.absentBound()).isLessThanOrEqualTo(total / capacity + 1e-9);
    for (SpaceSaving.Count count : sketch.counts()) {
      double[] truth = exact.get(count.key());
      assertThat(count.admitted()).isLessThanOrEqualTo(truth[0]);
      assertThat(count.denied()).isLessThanOrEqualTo(truth[1]);
      assertThat(truth[0] + truth[1]).isLessThanOrEqualTo(count.upperBound() + 1e-9);
      assertThat(count.error()).isLessThanOrEqualTo(total / capacity + 1e-9);
    }
    exact.forEach((key, truth) -> {
      if (truth[0] + truth[1] > total / capacity) {
        assertThat(sketch.get(key)).as("%s has more than W/capacity", key).isNotNull();
      }
      if (sketch.get(key) == null) {
        assertThat(truth[0] + truth[1]).isLessThanOrEqualTo(sketch.absentBound() + 1e-9);
      }
    });
    if (sketch.exact()) {
      exact.forEach((key, truth) -> assertThat(new double[] {sketch.get(key).admitted(), sketch.get(key).denied()})
          .containsExactly(truth));
    }
  }

  @Provide
  Arbitrary<Integer> capacities() {
    return Arbitraries.of(1, 2, 5, 16, 64, 500);
  }
}
