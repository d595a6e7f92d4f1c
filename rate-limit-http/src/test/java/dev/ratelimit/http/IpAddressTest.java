package dev.ratelimit.http;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpAddressTest {

  @ParameterizedTest
  @CsvSource({
      "127.0.0.1, 127.0.0.1",
      "0.0.0.0, 0.0.0.0",
      "255.255.255.255, 255.255.255.255",
      "::1, ::1",
      "0:0:0:0:0:0:0:1, ::1",
      "::, ::",
      "2001:DB8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
      "2001:db8:0:0:0:0:2:1, 2001:db8::2:1",
      "2001:0db8:0000:0000:0000:ff00:0042:8329, 2001:db8::ff00:42:8329",
      "2001:db8::, 2001:db8::",
      "1:0:0:1:0:0:0:1, 1:0:0:1::1",
      "fe80::1%eth0, fe80::1",
      "::ffff:192.0.2.128, 192.0.2.128",
      "::ffff:c000:280, 192.0.2.128",
      "0:0:0:0:0:ffff:7f00:1, 127.0.0.1",
      "::192.0.2.128, ::c000:280",
      "64:ff9b::192.0.2.33, 64:ff9b::c000:221",
  })
  void parse_readsLiteralsAndWritesThemCanonically(String text, String canonical) {
    assertThat(IpAddress.format(IpAddress.parse(text))).isEqualTo(canonical);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", " 1.2.3.4", "1..2.3",
      "a.b.c.d", "localhost", "example.com", "1.2.3.-4", ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::",
      "::g", ":1", "1:", "1:2:3:4:5:6:7::8:9", "1:2:3:4:5:6:7:8::", "::1.2.3", "::1.2.3.4:5", "::256.1.1.1",
      "1:2:3:4:5:6:7:1.2.3.4", "%eth0", "[::1]", "unknown", "_hidden"})
  void parse_refusesWhatIsNotAnAddress(String text) {
    assertThat(IpAddress.parse(text)).isNull();
  }

  @ParameterizedTest
  @CsvSource({
      "203.0.113.7, 203.0.113.7",
      "2001:db8:1:2:3:4:5:6, 2001:db8:1:2::/64",
      "2001:db8:1:2::99, 2001:db8:1:2::/64",
      "2001:db8::1, 2001:db8::/64",
      "::1, ::/64",
      "::ffff:203.0.113.7, 203.0.113.7",
  })
  void key_isTheIpv4AddressOrTheIpv6Slash64(String text, String key) {
    assertThat(IpAddress.key(IpAddress.parse(text))).isEqualTo(key);
  }

  @ParameterizedTest
  @CsvSource({"[::1], ::1", "[0:0:0:0:0:0:0:1], ::1", "127.0.0.1, 127.0.0.1"})
  void parsePeer_acceptsBracketedIpv6AsSomeContainersWriteIt(String peer, String canonical) {
    assertThat(IpAddress.format(IpAddress.parsePeer(peer))).isEqualTo(canonical);
  }

  @Property(tries = 3000)
  void isDottedQuad_agreesWithParseV4(@ForAll("quadish") String text) {
    assertThat(IpAddress.isDottedQuad(text)).isEqualTo(IpAddress.parseV4(text, 0, text.length()) != null);
  }

  @Provide
  Arbitrary<String> quadish() {
    return Arbitraries.of("0", "1", "9", "25", "255", "256", "01", "1000", ".", "..", "a", "-", " ", ":")
        .list().ofMaxSize(9).map(parts -> String.join("", parts));
  }
}
