package dev.ratelimit.http;

/**
 * An address or a CIDR block of trusted proxies: {@code 10.0.0.0/8}, {@code ::1},
 * {@code 2001:db8::/32}. Host bits past the prefix are ignored ({@code 10.1.2.3/8} is
 * {@code 10.0.0.0/8}); an IPv4-mapped block ({@code ::ffff:10.0.0.0/104}) is its IPv4 block.
 */
final class AddressBlock {
  private final byte[] network;
  private final int bits;
  private final String text;

  private AddressBlock(byte[] network, int bits, String text) {
    this.network = network;
    this.bits = bits;
    this.text = text;
  }

  /**
   * Parses one address or block.
   *
   * @throws IllegalArgumentException naming the text and what is wrong with it
   */
  static AddressBlock parse(String text) {
    int slash = text.indexOf('/');
    String host = slash < 0 ? text : text.substring(0, slash);
    byte[] address = host.indexOf(':') < 0 ? IpAddress.parse(host) : parseV6Exactly(host);
    if (address == null) {
      throw new IllegalArgumentException("'" + text + "' is not an IP address or CIDR block"
          + " (expected e.g. 10.0.0.0/8, 192.168.1.7, ::1 or 2001:db8::/32; host names are not resolved)");
    }
    int bits = address.length * 8;
    if (slash >= 0) {
      String prefix = text.substring(slash + 1);
      int max = host.indexOf(':') < 0 ? 32 : 128;
      bits = prefixLength(prefix, max, text);
      if (max == 128 && address.length == 4) {
        // an IPv4-mapped block: its prefix counts the 96 bits of ::ffff:0:0/96
        if (bits < 96) {
          throw new IllegalArgumentException("'" + text + "' is an IPv4-mapped block shorter than /96;"
              + " write IPv4 blocks as IPv4, e.g. 10.0.0.0/8");
        }
        bits -= 96;
      }
    }
    return new AddressBlock(masked(address, bits), bits, text);
  }

  private static byte[] parseV6Exactly(String host) {
    if (host.indexOf('%') >= 0) {
      return null; // a zone has no place in a block
    }
    return IpAddress.parse(host);
  }

  private static int prefixLength(String prefix, int max, String text) {
    if (prefix.isEmpty() || prefix.length() > 3 || !prefix.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new IllegalArgumentException("'" + text + "' has a bad prefix length '" + prefix + "'; expected 0 to " + max);
    }
    int bits = Integer.parseInt(prefix);
    if (bits > max) {
      throw new IllegalArgumentException("'" + text + "' has a prefix length above " + max);
    }
    return bits;
  }

  private static byte[] masked(byte[] address, int bits) {
    byte[] network = address.clone();
    for (int i = 0; i < network.length; i++) {
      int keep = Math.max(0, Math.min(8, bits - 8 * i));
      network[i] &= (byte) (0xff00 >> keep);
    }
    return network;
  }

  boolean contains(byte[] address) {
    if (address.length != network.length) {
      return false;
    }
    int whole = bits / 8;
    for (int i = 0; i < whole; i++) {
      if (address[i] != network[i]) {
        return false;
      }
    }
    int rest = bits % 8;
    return rest == 0 || ((address[whole] ^ network[whole]) & (0xff00 >> rest) & 0xff) == 0;
  }

  /** Whether every address of {@code other} is in this block too. */
  boolean covers(AddressBlock other) {
    return other.network.length == network.length && other.bits >= bits && contains(other.network);
  }

  /** The number of addresses in the block, as a power of two: 32 for an IPv4 /0. */
  int sizeBits() {
    return network.length * 8 - bits;
  }

  boolean isV4() {
    return network.length == 4;
  }

  @Override
  public String toString() {
    return text;
  }
}
