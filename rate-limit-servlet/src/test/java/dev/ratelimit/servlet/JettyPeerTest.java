package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet4Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class JettyPeerTest {

  @Test
  void text_isTheAddressesOwnTextAndKeptPerAddress() throws Exception {
    for (String literal : new String[] {"127.0.0.1", "0.0.0.0", "255.255.255.255", "10.0.0.1", "203.0.113.7"}) {
      Inet4Address address = v4(literal);
      String text = JettyPeer.text(address);
      assertThat(text).isEqualTo(literal).isEqualTo(address.getHostAddress());
      // another object for the same address finds the text kept
      assertThat(JettyPeer.text(v4(literal))).isSameAs(text);
    }
  }

  /** An address named by a host name too: the text is still the numeric one Jetty gives. */
  @Test
  void text_ofAnAddressWithAHostNameIsNumeric() throws Exception {
    Inet4Address named = (Inet4Address) InetAddress.getByAddress("client.example", new byte[] {(byte) 198, 51, 100, 9});
    assertThat(JettyPeer.text(named)).isEqualTo("198.51.100.9");
  }

  /**
   * Millions of distinct clients (a flood of spoofed sources, or a large NAT): each gets its own
   * text, whatever slot it shares; the table is a fixed array, so memory stays put.
   */
  @Test
  void text_manyDistinctAddressesSharingSlotsEachGetTheirOwn() throws Exception {
    for (int i = 0; i < 300_000; i++) {
      byte[] bytes = {(byte) (i >>> 24 | 1), (byte) (i >>> 16), (byte) (i >>> 8), (byte) i};
      Inet4Address address = (Inet4Address) InetAddress.getByAddress(bytes);
      String expected = (bytes[0] & 0xff) + "." + (bytes[1] & 0xff) + "." + (bytes[2] & 0xff) + "." + (bytes[3] & 0xff);
      assertThat(JettyPeer.text(address)).isEqualTo(expected);
      // two addresses that share a slot, alternately: neither is ever given the other's text
      Inet4Address neighbour = (Inet4Address) InetAddress.getByAddress(new byte[] {bytes[0], bytes[1], (byte) (bytes[2] ^ 1), bytes[3]});
      assertThat(JettyPeer.text(neighbour)).isEqualTo(neighbour.getHostAddress());
      assertThat(JettyPeer.text(address)).isEqualTo(expected);
    }
  }

  private static Inet4Address v4(String literal) throws Exception {
    return (Inet4Address) InetAddress.getByName(literal); // a literal: never a lookup
  }
}
