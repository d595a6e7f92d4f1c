package dev.ratelimit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@code methods=}, {@code charge-on=} and {@code refund-cancelled=} options of a rule line. */
class RuleLineTest {

  @Test
  void parse_readsMethodsAndChargeOn() {
    RuleLine line = RuleLine.parse("/login login key=param:user methods=post,PUT charge-on=401,403,5xx");
    assertThat(line.methods()).isEqualTo(Set.of("POST", "PUT"));
    assertThat(line.chargeOn().counts(401)).isTrue();
    assertThat(line.chargeOn().counts(403)).isTrue();
    assertThat(line.chargeOn().counts(502)).isTrue();
    assertThat(line.chargeOn().counts(404)).isFalse();
    assertThat(line.chargeOn().counts(200)).isFalse();
    assertThat(RuleLine.parse("/api/* api").methods()).isNull();
    assertThat(RuleLine.parse("/api/* api").chargeOn()).isNull();
  }

  @Test
  void chargeOn_classesCoverTheirHundred_andNothingOutsideStatuses() {
    ChargeOn clientErrors = ChargeOn.parse("4xx");
    assertThat(clientErrors.counts(400)).isTrue();
    assertThat(clientErrors.counts(499)).isTrue();
    assertThat(clientErrors.counts(500)).isFalse();
    assertThat(clientErrors.counts(399)).isFalse();
    assertThat(clientErrors.counts(-1)).isFalse();
    assertThat(clientErrors.counts(Integer.MAX_VALUE)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"6xx", "40", "4000", "abc", "4XX5", "401;403", " ", "99", "0xx"})
  void chargeOn_rejectsWhatIsNotAStatusOrAClass(String text) {
    assertThatThrownBy(() -> RuleLine.parse("/a a charge-on=" + text.strip()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("charge-on");
  }

  @Test
  void methods_rejectsWhatIsNotAMethod_andBothOptionsOnce() {
    assertThatThrownBy(() -> RuleLine.parse("/a a methods=GET,<script>"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("method '<script>' is not an HTTP method such as GET or POST");
    assertThatThrownBy(() -> RuleLine.parse("/a a methods=" + "G".repeat(10_000)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RuleLine.parse("/a a methods=GET methods=POST"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("'methods' is given twice");
    assertThatThrownBy(() -> RuleLine.parse("/a a charge-on=4xx charge-on=5xx"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("'charge-on' is given twice");
  }

  @Test
  void parse_readsRefundCancelled_anyCase_absentIsNull() {
    assertThat(RuleLine.parse("/login login charge-on=401 refund-cancelled=true").refundCancelled()).isTrue();
    assertThat(RuleLine.parse("/login login charge-on=401 refund-cancelled=FALSE").refundCancelled()).isFalse();
    assertThat(RuleLine.parse("/login login charge-on=401").refundCancelled()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"yes", "1", "", "truee", "on"})
  void refundCancelled_rejectsWhatIsNotTrueOrFalse(String text) {
    assertThatThrownBy(() -> RuleLine.parse("/a a charge-on=401 refund-cancelled=" + text))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("refund-cancelled '" + text + "' is not true or false");
  }

  @Test
  void refundCancelled_shortensAHugeValue_andIsGivenOnce() {
    assertThatThrownBy(() -> RuleLine.parse("/a a refund-cancelled=" + "t".repeat(100_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("refund-cancelled '" + "t".repeat(40) + "...' is not true or false");
    assertThatThrownBy(() -> RuleLine.parse("/a a refund-cancelled=true refund-cancelled=true"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("'refund-cancelled' is given twice");
  }

  @ParameterizedTest
  @ValueSource(strings = {"4xx,,", ",4xx", "401,,403", "401, ,403"})
  void chargeOn_rejectsEmptyEntries_evenTrailingOnes(String text) {
    assertThatThrownBy(() -> ChargeOn.parse(text))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("charge-on entry ''");
  }

  @Test
  void methods_rejectsEmptyEntries_andShortensAHugeOneInTheMessage() {
    assertThatThrownBy(() -> RuleLine.methods("POST,"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("method '' is not an HTTP method such as GET or POST");
    assertThatThrownBy(() -> RuleLine.methods("G".repeat(100_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("method '" + "G".repeat(40) + "...' is not an HTTP method such as GET or POST");
  }

  @Test
  void parse_readsCostHeaderAndPass_absentIsNull() {
    RuleLine line = RuleLine.parse("/llm/* tokens cost=500 cost-header=X-Tokens-Used cost-header-pass=TRUE");
    assertThat(line.cost()).isEqualTo(500);
    assertThat(line.costHeader()).isEqualTo("X-Tokens-Used");
    assertThat(line.passCostHeader()).isTrue();
    assertThat(RuleLine.parse("/llm/* tokens cost-header=X-Cost").passCostHeader()).isNull();
    assertThat(RuleLine.parse("/llm/* tokens").costHeader()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "X Cost", "X-Cost:", "(x)", "X-Cöst", "a/b"})
  void costHeader_rejectsWhatIsNotAHeaderName(String name) {
    assertThatThrownBy(() -> CostHeader.of(name, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost-header '" + name + "' is not a header name (an HTTP token such as X-Cost)");
  }

  @Test
  void costHeader_shortensAHugeName_andEachOptionIsGivenOnce() {
    assertThatThrownBy(() -> RuleLine.parse("/a a cost-header=" + "(".repeat(100_000)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost-header '" + "(".repeat(40) + "...' is not a header name (an HTTP token such as X-Cost)");
    assertThatThrownBy(() -> RuleLine.parse("/a a cost-header=A cost-header=B"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("'cost-header' is given twice");
    assertThatThrownBy(() -> RuleLine.parse("/a a cost-header=A cost-header-pass=yes"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("cost-header-pass 'yes' is not true or false");
  }
}
