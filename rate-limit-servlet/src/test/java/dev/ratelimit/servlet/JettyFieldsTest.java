package dev.ratelimit.servlet;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.http.LimitHeader;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.junit.jupiter.api.Test;

class JettyFieldsTest {

  @Test
  void number_smallOnesAreMadeOnceAndSayTheirDigits() {
    for (LimitHeader header : new LimitHeader[] {LimitHeader.LIMIT, LimitHeader.REMAINING, LimitHeader.RESET}) {
      for (long n : new long[] {0, 1, 9, 10, 999, 1023}) {
        HttpField field = JettyFields.number(header, n);
        assertThat(field).isInstanceOf(PreEncodedHttpField.class).isSameAs(JettyFields.number(header, n));
        assertThat(field.getName()).isEqualTo(header.fieldName());
        assertThat(field.getValue()).isEqualTo(Long.toString(n));
        assertThat(wire(field)).isEqualTo(header.fieldName() + ": " + n + "\r\n");
      }
    }
  }

  @Test
  void number_largeOnesArePlainFieldsPerResponse() {
    for (long n : new long[] {1024, 5_000_000_000L, Long.MAX_VALUE, -1, Long.MIN_VALUE}) {
      HttpField field = JettyFields.number(LimitHeader.RESET, n);
      assertThat(field).isNotInstanceOf(PreEncodedHttpField.class).isNotSameAs(JettyFields.number(LimitHeader.RESET, n));
      assertThat(field.getName()).isEqualTo("X-RateLimit-Reset");
      assertThat(field.getValue()).isEqualTo(Long.toString(n));
    }
  }

  @Test
  void repeated_isMadeOnceForItsHeader() {
    HttpField policy = JettyFields.repeated(LimitHeader.POLICY, "\"api\";q=100;w=60");
    assertThat(policy).isInstanceOf(PreEncodedHttpField.class)
        .isSameAs(JettyFields.repeated(LimitHeader.POLICY, "\"api\";q=100;w=60"));
    assertThat(wire(policy)).isEqualTo("RateLimit-Policy: \"api\";q=100;w=60\r\n");
    // the same value under another name is not that field
    HttpField other = JettyFields.repeated(LimitHeader.STATE, "\"api\";q=100;w=60");
    assertThat(other.getName()).isEqualTo("RateLimit");
    assertThat(other.getValue()).isEqualTo("\"api\";q=100;w=60");
  }

  @Test
  void repeated_keepsNoValueJettyWouldWriteOtherwise() {
    for (String value : new String[] {"\"caf\u00e9\";q=1;w=1", "\"a\r\nSet-Cookie: x\";q=1", "\"tab\there\";q=1", "\u20ac"}) {
      HttpField field = JettyFields.repeated(LimitHeader.POLICY, value);
      assertThat(field).as(value).isNotInstanceOf(PreEncodedHttpField.class);
      assertThat(field.getValue()).isEqualTo(value);
    }
  }

  /** Many distinct values (a hostile or mistaken caller): a bounded number kept, the rest plain. */
  @Test
  void repeated_keepsAtMostItsBound() {
    JettyFields.Repeated repeated = new JettyFields.Repeated(16);
    int plain = 0;
    for (int i = 0; i < 100_000; i++) {
      HttpField field = repeated.field(LimitHeader.POLICY, "\"flood-" + i + "\";q=1;w=1");
      assertThat(field.getValue()).isEqualTo("\"flood-" + i + "\";q=1;w=1");
      plain += field instanceof PreEncodedHttpField ? 0 : 1;
    }
    assertThat(repeated.size()).isEqualTo(16);
    assertThat(plain).isEqualTo(100_000 - 16);
    // the ones kept still are
    assertThat(repeated.field(LimitHeader.POLICY, "\"flood-3\";q=1;w=1")).isInstanceOf(PreEncodedHttpField.class);
  }

  @Test
  void state_isMadeOncePerNameAndUnitsRemainingAndSaysTheText() {
    for (long remaining : new long[] {0, 1, 41, 999, 1023}) {
      HttpField field = JettyFields.state("api", remaining, 35);
      assertThat(field).isInstanceOf(PreEncodedHttpField.class).isSameAs(JettyFields.state("api", remaining, 35));
      assertThat(field.getValue()).isEqualTo("\"api\";r=" + remaining + ";t=35");
      assertThat(wire(field)).isEqualTo("RateLimit: \"api\";r=" + remaining + ";t=35\r\n");
    }
    // another limit's state with the same numbers is its own field
    assertThat(JettyFields.state("other", 41, 35).getValue()).isEqualTo("\"other\";r=41;t=35");
  }

  /** A slot is filled once: another reset with the same units left is right, as a plain field, and never replaces it. */
  @Test
  void state_keepsTheFirstResetPerSlotAndWritesOthersPlain() {
    JettyFields.StateTable table = new JettyFields.StateTable();
    HttpField first = table.field("w", 7, 60);
    for (long reset = 59; reset >= 0; reset--) {
      HttpField other = table.field("w", 7, reset);
      assertThat(other).isNotInstanceOf(PreEncodedHttpField.class);
      assertThat(other.getName()).isEqualTo("RateLimit");
      assertThat(other.getValue()).isEqualTo("\"w\";r=7;t=" + reset);
    }
    assertThat(table.field("w", 7, 60)).isSameAs(first);
    assertThat(table.field("w", 7, 5_000_000_000L).getValue()).isEqualTo("\"w\";r=7;t=5000000000");
  }

  @Test
  void state_outsideTheKeptNumbersIsPlain() {
    for (long remaining : new long[] {1024, 5_000_000_000L, -1}) {
      HttpField field = JettyFields.state("api", remaining, 1);
      assertThat(field).isNotInstanceOf(PreEncodedHttpField.class);
      assertThat(field.getValue()).isEqualTo("\"api\";r=" + remaining + ";t=1");
    }
  }

  @Test
  void state_keepsNoNameJettyWouldWriteOtherwise() {
    for (String name : new String[] {"caf\u00e9", "a\r\nSet-Cookie: x", "tab\there", "\u20ac"}) {
      HttpField field = JettyFields.state(name, 3, 1);
      assertThat(field).as(name).isNotInstanceOf(PreEncodedHttpField.class);
      assertThat(field.getValue()).isEqualTo("\"" + name + "\";r=3;t=1");
    }
  }

  /** Many limit names: a bounded number of tables, the rest plain fields with the right text. */
  @Test
  void state_keepsTablesForAtMostItsBound() {
    JettyFields.States states = new JettyFields.States(8);
    int tables = 0;
    for (int i = 0; i < 10_000; i++) {
      tables += states.table("limit-" + i) == null ? 0 : 1;
    }
    assertThat(tables).isEqualTo(8);
    assertThat(states.size()).isEqualTo(8);
    assertThat(states.table("limit-3")).isNotNull().isSameAs(states.table("limit-3"));
    assertThat(states.table("limit-9999")).isNull();
  }

  @Test
  void plain_isTheFieldAddHeaderWouldMake() {
    HttpField field = JettyFields.plain(LimitHeader.STATE, "\"api\";r=9;t=6");
    HttpField addHeaders = new HttpField("RateLimit", "\"api\";r=9;t=6");
    assertThat(field).isEqualTo(addHeaders);
    assertThat(field.getHeader()).isEqualTo(addHeaders.getHeader());
  }

  private static String wire(HttpField field) {
    ByteBuffer buffer = ByteBuffer.allocate(256);
    ((PreEncodedHttpField) field).putTo(buffer, HttpVersion.HTTP_1_1);
    buffer.flip();
    return ISO_8859_1.decode(buffer).toString();
  }
}
