package dev.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LimitTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "token-bucket rate=10 period=1m capacity=20|120000",
      "gcra rate=5 period=1s capacity=10|2000",
      "token-bucket rate=3 period=1s|1000",
      "fixed-window rate=2 period=1s capacity=5|3000",
      "fixed-window rate=100 period=1h|3600000",
      "sliding-window rate=100 period=1m|60000",
      "sliding-log rate=20 period=10s|10000",
      "quota rate=1000 cadence=month|-1",
  })
  void refillTime_isHowLongAnEmptyKeyTakesToBeFull(String spec, long millis) {
    assertThat(Limit.parse(spec).refillTime().map(Duration::toMillis).orElse(-1L)).isEqualTo(millis);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "token-bucket rate=10 period=1m capacity=20|20|Infinity",
      "token-bucket rate=10 period=1m maxReserved=5|10|15",
      "gcra rate=40 period=1s shards=4|20|Infinity",
      "fixed-window rate=40 period=1s shards=4 maxReserved=8|20|12",
      "gcra rate=40 period=1s shards=2|40|Infinity",
      "sliding-log rate=20 period=10s|20|20",
  })
  void largestCounts_areWhatTheLimitCouldEverAdmit(String spec, double count, double reservation) {
    Limit limit = Limit.parse(spec);
    assertThat(limit.largestCount()).isEqualTo(count);
    assertThat(limit.largestReservation()).isEqualTo(reservation);
  }
}
