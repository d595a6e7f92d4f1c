package dev.ratelimit.http;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Who the client is: the peer address, or, when the peer is a trusted proxy, the first untrusted
 * address in the one header the proxies write ({@code X-Forwarded-For} unless told otherwise:
 * {@code Forwarded} of RFC 7239, or {@code X-Real-IP}), walking from the right. Each proxy
 * appends the address it received from, so everything to the left of the first untrusted hop was
 * written by the client and is ignored; a hop that can't be read stops the walk at the last
 * trusted address. The other headers are never read: a client may send them, and a proxy that
 * doesn't write them passes them on. Malformed headers never throw, and never let a client
 * choose its own key.
 *
 * <p>Trusting every address ({@code 0.0.0.0/0}, {@code ::/0}) would let any client write its own
 * key, so a list that covers all of IPv4 or of IPv6 is refused unless allowed explicitly.
 *
 * <pre>{@code
 * TrustedProxies clients = TrustedProxies.trusting("10.0.0.0/8, ::1");
 * TrustedProxies behindNginxWithRfc7239 = TrustedProxies.trusting("10.0.0.0/8", "forwarded");
 * String key = clients.key(request);   // "203.0.113.7", or "2001:db8:1:2::/64"
 * }</pre>
 */
public final class TrustedProxies {
  private static final TrustedProxies DIRECT = new TrustedProxies(List.of(), ProxyHeader.X_FORWARDED_FOR);

  private final List<AddressBlock> trusted;
  private final ProxyHeader header;

  private TrustedProxies(List<AddressBlock> trusted, ProxyHeader header) {
    this.trusted = trusted;
    this.header = header;
  }

  /** No trusted proxies: the client is the peer, and forwarding headers are ignored. */
  public static TrustedProxies direct() {
    return DIRECT;
  }

  /**
   * Trusts the proxies in a comma- or space-separated list of addresses and CIDR blocks, e.g.
   * {@code "10.0.0.0/8, 192.168.1.7 ::1 2001:db8::/32"}, reading {@code X-Forwarded-For}; empty
   * means none.
   *
   * @throws IllegalArgumentException naming the entry that is not an address or a block, or the
   *     entries that together trust every address
   */
  public static TrustedProxies trusting(String proxies) {
    return parse(proxies, ProxyHeader.X_FORWARDED_FOR, false);
  }

  /**
   * As {@link #trusting(String)}, reading the header the proxies write: {@code x-forwarded-for},
   * {@code forwarded} (RFC 7239) or {@code x-real-ip}.
   *
   * @throws IllegalArgumentException also naming an unknown header
   */
  public static TrustedProxies trusting(String proxies, String forwardedHeader) {
    return parse(proxies, ProxyHeader.parse(Objects.requireNonNull(forwardedHeader, "forwardedHeader")), false);
  }

  /**
   * @param allowAll whether entries may together cover every IPv4 or every IPv6 address: only
   *     for a deployment whose every peer is a proxy that writes {@code header}
   */
  public static TrustedProxies parse(String proxies, ProxyHeader header, boolean allowAll) {
    Objects.requireNonNull(proxies, "proxies");
    List<AddressBlock> blocks = new ArrayList<>();
    for (String entry : proxies.split("[,\\s]+")) {
      if (!entry.isEmpty()) {
        blocks.add(AddressBlock.parse(entry));
      }
    }
    if (!allowAll) {
      for (boolean v4 : new boolean[] {true, false}) {
        List<AddressBlock> everyone = coveringEveryAddress(blocks, v4);
        if (!everyone.isEmpty()) {
          String entries = everyone.size() == 1 ? "entry '" + everyone.get(0) + "' trusts"
              : "entries " + everyone.stream().map(block -> "'" + block + "'").toList() + " together trust";
          throw new IllegalArgumentException("trusted proxy " + entries + " every " + (v4 ? "IPv4" : "IPv6")
              + " address, so any client could choose its own key by writing " + header.headerName()
              + "; list only your proxies' addresses, or, if every peer really is a proxy, allow it explicitly"
              + " with trust-all-proxies=true");
        }
      }
    }
    return blocks.isEmpty() ? DIRECT.reading(header) : new TrustedProxies(List.copyOf(blocks), header);
  }

  /**
   * The outermost blocks of one family when together they cover all of it, else none. CIDR
   * blocks are nested or disjoint, so the outermost ones cover the family exactly when their
   * sizes add up to all of it.
   */
  private static List<AddressBlock> coveringEveryAddress(List<AddressBlock> blocks, boolean v4) {
    List<AddressBlock> outermost = new ArrayList<>();
    for (AddressBlock block : blocks) {
      if (block.isV4() == v4 && outermost.stream().noneMatch(outer -> outer.covers(block))) {
        outermost.removeIf(block::covers);
        outermost.add(block);
      }
    }
    BigInteger size = BigInteger.ZERO;
    for (AddressBlock block : outermost) {
      size = size.add(BigInteger.ONE.shiftLeft(block.sizeBits()));
    }
    return size.equals(BigInteger.ONE.shiftLeft(v4 ? 32 : 128)) ? outermost : List.of();
  }

  /** The same proxies, read from another header. */
  public TrustedProxies reading(ProxyHeader header) {
    return header == this.header ? this : new TrustedProxies(trusted, header);
  }

  public ProxyHeader header() {
    return header;
  }

  /** Whether the trusted blocks cover every IPv4 or every IPv6 address. */
  public boolean trustsEveryAddress() {
    return !coveringEveryAddress(trusted, true).isEmpty() || !coveringEveryAddress(trusted, false).isEmpty();
  }

  /** The client's address, normalised (IPv4-mapped IPv6 as IPv4, RFC 5952 IPv6 text). */
  public String of(Request request) {
    byte[] client = resolve(request);
    return client == null ? peerText(request) : IpAddress.format(client);
  }

  /**
   * The rate limit key of the client: its IPv4 address, or its IPv6 /64 written as
   * {@code 2001:db8:1:2::/64}.
   */
  public String key(Request request) {
    String peer = request.peerAddress();
    if (trusted.isEmpty() && isCanonicalV4(peer)) {
      return peer; // the common case needs no parsing and no copy
    }
    byte[] client = resolve(request);
    return client == null ? peerText(request) : IpAddress.key(client);
  }

  private byte[] resolve(Request request) {
    byte[] peer = IpAddress.parsePeer(request.peerAddress());
    if (peer == null || !trusted(peer)) {
      return peer;
    }
    return walk(peer, header.hops(request));
  }

  /**
   * From the peer leftwards: the first untrusted hop is the client; an unreadable hop stops the
   * walk at the trusted address before it (the proxy that wrote it, which a client can't pick).
   */
  byte[] walk(byte[] peer, List<byte[]> hops) {
    byte[] client = peer;
    for (int i = hops.size() - 1; i >= 0 && trusted(client); i--) {
      byte[] hop = hops.get(i);
      if (hop == null) {
        return client;
      }
      client = IpAddress.unmapped(hop);
    }
    return client;
  }

  public boolean trusted(byte[] address) {
    for (AddressBlock block : trusted) {
      if (block.contains(address)) {
        return true;
      }
    }
    return false;
  }

  private static String peerText(Request request) {
    String peer = request.peerAddress();
    return peer == null ? "" : peer;
  }

  /** A dotted quad as a container writes it: the text is already the key. */
  private static boolean isCanonicalV4(String peer) {
    return peer != null && IpAddress.isDottedQuad(peer);
  }

  @Override
  public String toString() {
    return trusted.isEmpty() ? "ClientAddress[direct]"
        : "ClientAddress[trusting " + trusted + " reading " + header.headerName() + "]";
  }
}
