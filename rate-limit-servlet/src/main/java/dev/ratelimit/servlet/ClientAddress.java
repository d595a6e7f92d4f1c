package dev.ratelimit.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Who the client is: the peer address, or, when the peer is a trusted proxy, the first untrusted
 * address in {@code Forwarded} (RFC 7239, preferred when present) or {@code X-Forwarded-For},
 * walking from the right. Each proxy appends the address it received from, so everything to the
 * left of the first untrusted hop was written by the client and is ignored; a hop that can't be
 * read stops the walk at the last trusted address. Malformed headers never throw, and never
 * let a client choose its own key.
 *
 * <p>Your proxies must set the header this reads: with {@code Forwarded} present, it is the one
 * read, so a proxy that only appends {@code X-Forwarded-For} must also drop a client's
 * {@code Forwarded}.
 *
 * <pre>{@code
 * ClientAddress clients = ClientAddress.trusting("10.0.0.0/8, ::1");
 * String key = clients.key(request);   // "203.0.113.7", or "2001:db8:1:2::/64"
 * }</pre>
 */
public final class ClientAddress {
  private static final ClientAddress DIRECT = new ClientAddress(List.of());

  private final List<AddressBlock> trusted;

  private ClientAddress(List<AddressBlock> trusted) {
    this.trusted = trusted;
  }

  /** No trusted proxies: the client is the peer, and forwarding headers are ignored. */
  public static ClientAddress direct() {
    return DIRECT;
  }

  /**
   * Trusts the proxies in a comma- or space-separated list of addresses and CIDR blocks, e.g.
   * {@code "10.0.0.0/8, 192.168.1.7 ::1 2001:db8::/32"}; empty means none.
   *
   * @throws IllegalArgumentException naming the entry that is not an address or a block
   */
  public static ClientAddress trusting(String proxies) {
    Objects.requireNonNull(proxies, "proxies");
    List<AddressBlock> blocks = new ArrayList<>();
    for (String entry : proxies.split("[,\\s]+")) {
      if (!entry.isEmpty()) {
        blocks.add(AddressBlock.parse(entry));
      }
    }
    return blocks.isEmpty() ? DIRECT : new ClientAddress(List.copyOf(blocks));
  }

  /** The client's address, normalised (IPv4-mapped IPv6 as IPv4, RFC 5952 IPv6 text). */
  public String of(HttpServletRequest request) {
    byte[] client = resolve(request);
    return client == null ? peerText(request) : IpAddress.format(client);
  }

  /**
   * The rate limit key of the client: its IPv4 address, or its IPv6 /64 written as
   * {@code 2001:db8:1:2::/64}.
   */
  public String key(HttpServletRequest request) {
    String peer = request.getRemoteAddr();
    if (trusted.isEmpty() && isCanonicalV4(peer)) {
      return peer; // the common case needs no parsing and no copy
    }
    byte[] client = resolve(request);
    return client == null ? peerText(request) : IpAddress.key(client);
  }

  private byte[] resolve(HttpServletRequest request) {
    byte[] peer = IpAddress.parsePeer(request.getRemoteAddr());
    if (peer == null || !trusted(peer)) {
      return peer;
    }
    List<String> forwarded = Collections.list(request.getHeaders("Forwarded"));
    List<byte[]> hops = !forwarded.isEmpty()
        ? ForwardedHeaders.forwarded(forwarded)
        : ForwardedHeaders.xForwardedFor(Collections.list(request.getHeaders("X-Forwarded-For")));
    return walk(peer, hops);
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

  boolean trusted(byte[] address) {
    for (AddressBlock block : trusted) {
      if (block.contains(address)) {
        return true;
      }
    }
    return false;
  }

  private static String peerText(HttpServletRequest request) {
    String peer = request.getRemoteAddr();
    return peer == null ? "" : peer;
  }

  /** A dotted quad as a container writes it: the text is already the key. */
  private static boolean isCanonicalV4(String peer) {
    return peer != null && IpAddress.isDottedQuad(peer);
  }

  @Override
  public String toString() {
    return trusted.isEmpty() ? "ClientAddress[direct]" : "ClientAddress[trusting " + trusted + "]";
  }
}
