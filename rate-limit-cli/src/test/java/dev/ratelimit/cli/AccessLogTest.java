package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class AccessLogTest {

  @Test
  void fields_readCommonLogFormat() {
    assertThat(AccessLog.fields("127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" 200 2326"))
        .containsExactly(entry("t", "971211336000"), entry("key", "\"127.0.0.1\""), entry("method", "\"GET\""),
            entry("path", "\"/apache_pb.gif\""), entry("status", "200"));
  }

  @Test
  void fields_readCombinedLogFormatAndIgnoreRefererAndAgent() {
    assertThat(AccessLog.fields("192.168.1.7 - - [02/mar/2026:09:00:00 +0100] \"DELETE /a\\\"b HTTP/1.1\" 204 -"
        + " \"-\" \"agent \\\"quoted\\\"\""))
        .containsExactly(entry("t", "1772438400000"), entry("key", "\"192.168.1.7\""), entry("method", "\"DELETE\""),
            entry("path", "\"/a\\\\\\\"b\""), entry("status", "204"));
  }

  @Test
  void fields_keepARequestThatIsNotMethodAndPath() {
    assertThat(AccessLog.fields("10.0.0.1 - - [10/Oct/2000:13:55:36 +0000] \"-\" 408 -"))
        .containsExactly(entry("t", "971186136000"), entry("key", "\"10.0.0.1\""), entry("request", "\"-\""),
            entry("status", "408"));
  }

  @Test
  void fields_rejectBadTime() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> AccessLog.fields("10.0.0.1 - - [10/Foo/2000:13:55:36 +0000] \"GET / HTTP/1.1\" 200 1"))
        .withMessage("bad time [10/Foo/2000:13:55:36 +0000] in an access log line; expected"
            + " [dd/MMM/yyyy:HH:mm:ss +hhmm]");
  }

  @Test
  void fields_rejectOtherLines() {
    for (String line : new String[] {"", "GET / HTTP/1.1", "10.0.0.1 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 2000 1",
        "10.0.0.1 - - [10/Oct/2000:13:55:36 +0000] \"GET /\" 200 1 \"only-referer\""}) {
      assertThatIllegalArgumentException().as(line).isThrownBy(() -> AccessLog.fields(line))
          .withMessageStartingWith("neither a JSON object nor an access log line");
    }
  }

  private static java.util.Map.Entry<String, String> entry(String name, String raw) {
    return java.util.Map.entry(name, raw);
  }
}
