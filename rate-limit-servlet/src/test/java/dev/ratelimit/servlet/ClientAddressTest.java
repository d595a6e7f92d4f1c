package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.http.IpAddress;
import dev.ratelimit.http.ProxyHeader;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ClientAddressTest {
  private static final String LIST = "10.0.0.0/8, 192.168.1.7 ::1 2001:db8:ffff::/48";
  private static final ClientAddress PROXIES = ClientAddress.trusting(LIST);
  /** The same proxies, writing RFC 7239 {@code Forwarded}. */
  private static final ClientAddress FORWARDED = ClientAddress.trusting(LIST, "forwarded");
  private static final ClientAddress REAL_IP = ClientAddress.trusting(LIST, "x-real-ip");

  private static HttpServletRequest request(String peer, String... headers) {
    FakeHttp.Request request = new FakeHttp.Request().from(peer);
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return request.build();
  }

  @Test
  void clientAddress_isThePeerWithoutTrustedProxies() {
    HttpServletRequest request = request("203.0.113.7", "X-Forwarded-For", "198.51.100.1");
    assertThat(ClientAddress.direct().key(request)).isEqualTo("203.0.113.7");
    assertThat(ClientAddress.direct().of(request)).isEqualTo("203.0.113.7");
  }

  @Test
  void clientAddress_ignoresForwardedFromUntrustedPeer() {
    assertThat(PROXIES.key(request("203.0.113.7", "X-Forwarded-For", "198.51.100.1"))).isEqualTo("203.0.113.7");
    assertThat(FORWARDED.key(request("203.0.113.7", "Forwarded", "for=198.51.100.1"))).isEqualTo("203.0.113.7");
    assertThat(REAL_IP.key(request("203.0.113.7", "X-Real-IP", "198.51.100.1"))).isEqualTo("203.0.113.7");
  }

  @Test
  void clientAddress_walksFromTheRightSkippingTrustedProxies() {
    // the client wrote 1.1.1.1 itself; 198.51.100.9 is what the first trusted proxy saw
    HttpServletRequest request = request("10.0.0.2",
        "X-Forwarded-For", "1.1.1.1, 198.51.100.9, 10.0.0.5", "X-Forwarded-For", "192.168.1.7");
    assertThat(PROXIES.key(request)).isEqualTo("198.51.100.9");
  }

  @Test
  void clientAddress_readsOnlyTheChosenHeader() {
    HttpServletRequest request = request("10.0.0.2",
        "X-Forwarded-For", "198.51.100.1",
        "Forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43, for=\"[2001:db8:cafe::17]:4711\"",
        "X-Real-IP", "198.51.100.2");
    assertThat(PROXIES.key(request)).as("X-Forwarded-For, the default").isEqualTo("198.51.100.1");
    assertThat(FORWARDED.key(request)).isEqualTo("2001:db8:cafe::/64");
    assertThat(FORWARDED.of(request)).isEqualTo("2001:db8:cafe::17");
    assertThat(REAL_IP.key(request)).isEqualTo("198.51.100.2");
  }

  @Test
  void clientAddress_nginxStyleRequestIsOneClientWhateverTheClientWroteInForwarded() {
    // nginx appends the peer to the client's X-Forwarded-For and passes the client's Forwarded on untouched
    Random random = new Random(7);
    for (int i = 0; i < 300; i++) {
      String spoofed = (1 + random.nextInt(223)) + "." + random.nextInt(256) + "." + random.nextInt(256) + ".1";
      HttpServletRequest request = request("10.0.0.2", "Forwarded", "for=" + spoofed,
          "X-Forwarded-For", spoofed + ", 203.0.113.9", "X-Real-IP", spoofed);
      assertThat(PROXIES.key(request)).isEqualTo("203.0.113.9");
    }
  }

  @Test
  void clientAddress_forwardedIgnoresAClientsXForwardedFor() {
    HttpServletRequest request = request("10.0.0.2", "X-Forwarded-For", "198.51.100.66", "Forwarded", "for=203.0.113.9");
    assertThat(FORWARDED.key(request)).isEqualTo("203.0.113.9");
    assertThat(FORWARDED.key(request("10.0.0.2", "X-Forwarded-For", "198.51.100.66"))).as("no Forwarded: the proxy")
        .isEqualTo("10.0.0.2");
  }

  @Test
  void clientAddress_realIpIsTheLastValueOnly() {
    // a proxy that adds the header rather than setting it puts its own value last
    assertThat(REAL_IP.key(request("10.0.0.2", "X-Real-IP", "198.51.100.66", "X-Real-IP", "203.0.113.9")))
        .isEqualTo("203.0.113.9");
    assertThat(REAL_IP.key(request("10.0.0.2", "X-Real-IP", "198.51.100.66, 203.0.113.9"))).isEqualTo("203.0.113.9");
    assertThat(REAL_IP.key(request("10.0.0.2", "X-Real-IP", "198.51.100.66, garbage"))).isEqualTo("10.0.0.2");
    assertThat(REAL_IP.key(request("10.0.0.2", "X-Real-IP", "10.0.0.7"))).as("a trusted hop, and nothing to its left")
        .isEqualTo("10.0.0.7");
    assertThat(REAL_IP.key(request("10.0.0.2", "X-Forwarded-For", "198.51.100.66"))).isEqualTo("10.0.0.2");
  }

  @Test
  void clientAddress_readsEveryForwardedLineInOrder() {
    HttpServletRequest request = request("::1",
        "Forwarded", "for=198.51.100.1", "Forwarded", "For=10.1.2.3;proto=https");
    assertThat(FORWARDED.key(request)).isEqualTo("198.51.100.1");
  }

  @Test
  void clientAddress_allTrustedGivesTheLeftmost() {
    assertThat(PROXIES.key(request("10.0.0.2", "X-Forwarded-For", "10.9.9.9, 10.0.0.3"))).isEqualTo("10.9.9.9");
  }

  @Test
  void clientAddress_groupsIpv6By64() {
    assertThat(ClientAddress.direct().key(request("2001:db8:1:2:aaaa::1"))).isEqualTo("2001:db8:1:2::/64");
    assertThat(ClientAddress.direct().key(request("[2001:db8:1:2:bbbb::2]"))).isEqualTo("2001:db8:1:2::/64");
    assertThat(PROXIES.key(request("::1", "X-Forwarded-For", "2001:db8:1:2::3"))).isEqualTo("2001:db8:1:2::/64");
  }

  @Test
  void clientAddress_normalisesIpv4Mapped() {
    assertThat(ClientAddress.direct().key(request("::ffff:203.0.113.7"))).isEqualTo("203.0.113.7");
    // a mapped peer is trusted by its IPv4 block, and a mapped hop is the IPv4 client
    assertThat(PROXIES.key(request("::ffff:10.0.0.1", "X-Forwarded-For", "::ffff:198.51.100.4")))
        .isEqualTo("198.51.100.4");
    assertThat(FORWARDED.key(request("10.0.0.1", "Forwarded", "for=198.51.100.5, for=\"[::ffff:10.0.0.9]\"")))
        .as("a mapped trusted hop is skipped too").isEqualTo("198.51.100.5");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "198.51.100.1:8080 | 198.51.100.1",
      "[2001:db8::5]:443 | 2001:db8::/64",
      "[2001:db8::5] | 2001:db8::/64",
      "2001:db8::5 | 2001:db8::/64",
      " 198.51.100.1 | 198.51.100.1",
  })
  void clientAddress_readsXForwardedForNodesWithPorts(String hop, String key) {
    assertThat(PROXIES.key(request("10.0.0.1", "X-Forwarded-For", hop))).isEqualTo(key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"unknown", "_hidden", "garbage", "198.51.100.1:http", "[2001:db8::5", "", ",", "1.2.3.4.5",
      "198.51.100.1 198.51.100.2", "localhost", "[198.51.100.1]"})
  void clientAddress_unreadableHopStopsAtTheLastTrustedAddress(String hop) {
    // the client left of the bad hop could have written anything: the proxy that passed it on is the key
    assertThat(PROXIES.key(request("10.0.0.1", "X-Forwarded-For", "203.0.113.66, " + hop + ", 10.0.0.3")))
        .isEqualTo("10.0.0.3");
    assertThat(PROXIES.key(request("10.0.0.1", "X-Forwarded-For", hop))).isEqualTo("10.0.0.1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"for=unknown", "for=_hidden", "proto=https", "for=\"[2001:db8::1]", "for=\"198.51.100.1",
      "for=198.51.100.1;for=198.51.100.2", "for", ";;;", "for=\"\"", "for=\"[::1]:99999999\"", "by=1.2.3.4;x"})
  void clientAddress_malformedForwardedStopsAtTheLastTrustedAddress(String element) {
    assertThat(FORWARDED.key(request("10.0.0.1", "Forwarded", "for=203.0.113.66, " + element))).isEqualTo("10.0.0.1");
  }

  @Test
  void clientAddress_quotedCommasDoNotSplitForwardedElements() {
    HttpServletRequest request = request("10.0.0.1",
        "Forwarded", "for=198.51.100.2;note=\"a, for=203.0.113.66\"");
    assertThat(FORWARDED.key(request)).isEqualTo("198.51.100.2");
  }

  @Test
  void clientAddress_peerThatIsNoAddressIsTheKeyAsItIs() {
    assertThat(PROXIES.key(request("unix:/run/app.sock", "X-Forwarded-For", "198.51.100.1"))).isEqualTo("unix:/run/app.sock");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = { // the messages quote with '
      "10.0.0.0/33 | '10.0.0.0/33' has a prefix length above 32",
      "10.0.0.0/ | '10.0.0.0/' has a bad prefix length ''; expected 0 to 32",
      "10.0.0.0/x | '10.0.0.0/x' has a bad prefix length 'x'; expected 0 to 32",
      "::/129 | '::/129' has a prefix length above 128",
      "::ffff:10.0.0.0/8 | '::ffff:10.0.0.0/8' is an IPv4-mapped block shorter than /96; write IPv4 blocks as IPv4, e.g. 10.0.0.0/8",
      "10.0.0/8 | '10.0.0/8' is not an IP address or CIDR block (expected e.g. 10.0.0.0/8, 192.168.1.7, ::1 or 2001:db8::/32; host names are not resolved)",
      "proxy.internal | 'proxy.internal' is not an IP address or CIDR block (expected e.g. 10.0.0.0/8, 192.168.1.7, ::1 or 2001:db8::/32; host names are not resolved)",
      "fe80::1%eth0 | 'fe80::1%eth0' is not an IP address or CIDR block (expected e.g. 10.0.0.0/8, 192.168.1.7, ::1 or 2001:db8::/32; host names are not resolved)",
  })
  void trusting_refusesBadBlocksNamingThem(String block, String message) {
    assertThatThrownBy(() -> ClientAddress.trusting("10.0.0.0/8, " + block))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @ParameterizedTest
  @CsvSource({
      "10.0.0.0/8, 10.255.1.2, true",
      "10.0.0.0/8, 11.0.0.1, false",
      "10.1.2.3/8, 10.200.0.1, true",
      "192.168.1.7, 192.168.1.7, true",
      "192.168.1.7, 192.168.1.8, false",
      "172.16.0.0/12, 172.31.255.255, true",
      "172.16.0.0/12, 172.32.0.0, false",
      "0.0.0.0/0, 8.8.8.8, true",
      "0.0.0.0/0, ::1, false",
      "2001:db8::/32, 2001:db8:ffff::1, true",
      "2001:db8::/32, 2001:db9::1, false",
      "::ffff:10.0.0.0/104, 10.9.9.9, true",
      "::/0, 2001:db8::1, true",
      "::/0, 10.0.0.1, false",
  })
  void trusting_matchesAddressesInsideTheBlock(String block, String address, boolean inside) {
    assertThat(ClientAddress.parse(block, ProxyHeader.X_FORWARDED_FOR, true).trusted(IpAddress.parse(address)))
        .isEqualTo(inside);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0.0.0.0/0 | entry '0.0.0.0/0' trusts every IPv4",
      "10.0.0.0/8, 0.0.0.0/0 | entry '0.0.0.0/0' trusts every IPv4",
      "1.2.3.4/0 | entry '1.2.3.4/0' trusts every IPv4",
      "::ffff:0.0.0.0/96 | entry '::ffff:0.0.0.0/96' trusts every IPv4",
      "0.0.0.0/1 128.0.0.0/1 | entries ['0.0.0.0/1', '128.0.0.0/1'] together trust every IPv4",
      "10.0.0.0/8 0.0.0.0/1 128.0.0.0/2 192.0.0.0/2 | entries ['0.0.0.0/1', '128.0.0.0/2', '192.0.0.0/2'] together trust every IPv4",
      "::1 ::/0 | entry '::/0' trusts every IPv6",
      "::/1, 8000::/1 | entries ['::/1', '8000::/1'] together trust every IPv6",
  })
  void trusting_refusesEntriesThatTrustEveryAddressNamingThem(String proxies, String entries) {
    String expected = "trusted proxy " + entries + " address, so any client could choose its own key by writing"
        + " X-Forwarded-For; list only your proxies' addresses, or, if every peer really is a proxy, allow it"
        + " explicitly with trust-all-proxies=true";
    assertThatThrownBy(() -> ClientAddress.trusting(proxies)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage(expected);
    assertThat(ClientAddress.parse(proxies, ProxyHeader.X_FORWARDED_FOR, true).trustsEveryAddress()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"0.0.0.0/1", "0.0.0.0/1 0.0.0.0/1 0.0.0.0/2", "128.0.0.0/1 0.0.0.0/2 64.0.0.0/3", "::/1",
      "10.0.0.0/8 ::/1 ::ffff:0.0.0.0/97"})
  void trusting_acceptsBroadBlocksThatLeaveAddressesOut(String proxies) {
    assertThat(ClientAddress.trusting(proxies).trustsEveryAddress()).isFalse();
  }

  @Test
  void trusting_allowedToTrustEveryAddressBelievesAnyPeer() {
    ClientAddress everyone = ClientAddress.parse("0.0.0.0/0 ::/0", ProxyHeader.X_FORWARDED_FOR, true);
    assertThat(everyone.key(request("198.51.100.1", "X-Forwarded-For", "203.0.113.9"))).isEqualTo("203.0.113.9");
    assertThat(everyone.key(request("2001:db8::1", "X-Forwarded-For", "203.0.113.9"))).isEqualTo("203.0.113.9");
  }

  @Test
  void trusting_refusesAnUnknownForwardedHeader() {
    assertThatThrownBy(() -> ClientAddress.trusting("10.0.0.0/8", "x-forwarded-host"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown forwarded header 'x-forwarded-host'; allowed: x-forwarded-for, forwarded, x-real-ip");
    assertThat(ClientAddress.trusting("10.0.0.0/8", " X-Real-IP ").header()).isEqualTo(ProxyHeader.X_REAL_IP);
  }

  @Property(tries = 2000)
  void clientAddress_neverThrowsAndNeverLetsTheClientPickAnAddressLeftOfAnUntrustedHop(
      @ForAll("headerText") String forwarded, @ForAll("headerText") String xff) {
    // the peer is a trusted proxy that saw 203.0.113.1: whatever the client wrote to its left is ignored
    HttpServletRequest viaXff = request("10.0.0.1", "X-Forwarded-For", xff + ", 203.0.113.1");
    assertThat(PROXIES.key(viaXff)).isEqualTo("203.0.113.1");
    HttpServletRequest viaForwarded = request("10.0.0.1", "Forwarded", forwarded + ", for=203.0.113.1");
    assertThat(FORWARDED.key(viaForwarded)).isIn("203.0.113.1", "10.0.0.1");
    HttpServletRequest viaRealIp = request("10.0.0.1", "X-Real-IP", xff + ", 203.0.113.1");
    assertThat(REAL_IP.key(viaRealIp)).isEqualTo("203.0.113.1");
    // and the header alone never throws; the key is the peer or an address the proxy passed on
    assertThat(FORWARDED.key(request("10.0.0.1", "Forwarded", forwarded))).isNotNull();
    assertThat(PROXIES.key(request("10.0.0.1", "X-Forwarded-For", xff))).isNotNull();
    assertThat(REAL_IP.key(request("10.0.0.1", "X-Real-IP", xff))).isNotNull();
    // a client's own header of another kind is never read
    assertThat(PROXIES.key(request("10.0.0.1", "Forwarded", forwarded, "X-Real-IP", xff))).isEqualTo("10.0.0.1");
  }

  @Provide
  Arbitrary<String> headerText() {
    Arbitrary<String> pieces = Arbitraries.of("for=", "For=", "\"", "[", "]", ":", ";", ",", " ", "\\", "_x",
        "unknown", "198.51.100.7", "10.0.0.9", "2001:db8::1", "::ffff:", "proto=https", "by=", "=", "%", "1.2",
        "::", "99999", "é", "\t");
    return pieces.list().ofMaxSize(12).map(list -> String.join("", list));
  }
}
