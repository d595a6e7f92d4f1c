package dev.ratelimit.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@code #clientAddress.in(...)}: which addresses are in which blocks, and what a bad block does. */
class ClientIpTest {

  @Test
  void in_matchesIpv4AndIpv6Blocks_andSingleAddresses() {
    assertThat(ClientIp.of("10.1.2.3").in("10.0.0.0/8")).isTrue();
    assertThat(ClientIp.of("11.1.2.3").in("10.0.0.0/8")).isFalse();
    assertThat(ClientIp.of("192.168.1.7").in("10.0.0.0/8, 192.168.1.7")).isTrue();
    assertThat(ClientIp.of("fd00::17").in("10.0.0.0/8 fd00::/8")).isTrue();
    assertThat(ClientIp.of("2001:db8::17").in("10.0.0.0/8, fd00::/8")).isFalse();
    assertThat(ClientIp.of("203.0.113.9").in("0.0.0.0/0")).as("every address may be listed here").isTrue();
    assertThat(ClientIp.of("10.1.2.3").in("")).isFalse();
  }

  @Test
  void in_anIpv4MappedAddressIsItsIpv4Address_andWhatIsNoAddressIsInNoBlock() {
    assertThat(ClientIp.of("::ffff:10.1.2.3").in("10.0.0.0/8")).isTrue();
    assertThat(ClientIp.of("unix:/run/app.sock").in("0.0.0.0/0, ::/0")).isFalse();
    assertThat(ClientIp.of("").in("0.0.0.0/0")).isFalse();
    assertThat(ClientIp.of(null).address()).isEmpty();
  }

  @Test
  void in_aBadBlockThrowsNamingIt() {
    assertThatThrownBy(() -> ClientIp.of("10.1.2.3").in("10.0.0.0/33")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10.0.0.0/33");
    assertThatThrownBy(() -> ClientIp.of("10.1.2.3").in("intranet.example")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("intranet.example");
  }

  @Test
  void text_isTheAddress() {
    assertThat(ClientIp.of("2001:db8::17")).hasToString("2001:db8::17");
    assertThat(ClientIp.of("2001:db8::17").address()).isEqualTo("2001:db8::17");
  }

  @Test
  void in_manyDistinctBlockLists_areAnsweredAlike_andKeepABoundedCache() {
    for (int i = 0; i < 10_000; i++) {
      assertThat(ClientIp.of("10.0." + (i % 256) + ".1").in("10.0." + (i % 256) + ".0/24, 172.16.0.0/12")).isTrue();
    }
  }
}
