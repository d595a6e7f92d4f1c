package dev.ratelimit.servlet;

import dev.ratelimit.http.ProxyHeader;
import dev.ratelimit.http.TrustedProxies;
import jakarta.servlet.http.HttpServletRequest;
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
 * ClientAddress clients = ClientAddress.trusting("10.0.0.0/8, ::1");
 * ClientAddress behindNginxWithRfc7239 = ClientAddress.trusting("10.0.0.0/8", "forwarded");
 * String key = clients.key(request);   // "203.0.113.7", or "2001:db8:1:2::/64"
 * }</pre>
 *
 * @since 1.0
 */
public final class ClientAddress {
  private static final ClientAddress DIRECT = new ClientAddress(TrustedProxies.direct());

  /** The one implementation, shared with the reactive front ends (docs/design.md §6.3). */
  private final TrustedProxies proxies;

  private ClientAddress(TrustedProxies proxies) {
    this.proxies = proxies;
  }

  /** No trusted proxies: the client is the peer, and forwarding headers are ignored. */
  public static ClientAddress direct() {
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
  public static ClientAddress trusting(String proxies) {
    return new ClientAddress(TrustedProxies.trusting(proxies));
  }

  /**
   * As {@link #trusting(String)}, reading the header the proxies write: {@code x-forwarded-for},
   * {@code forwarded} (RFC 7239) or {@code x-real-ip}.
   *
   * @throws IllegalArgumentException also naming an unknown header
   */
  public static ClientAddress trusting(String proxies, String forwardedHeader) {
    return new ClientAddress(TrustedProxies.trusting(proxies, Objects.requireNonNull(forwardedHeader, "forwardedHeader")));
  }

  /**
   * As {@link #trusting(String, String)}, with {@code trust-all-proxies} as {@code web.xml} and
   * Spring Boot name it: whether entries may together cover every address (only for a deployment
   * whose every peer is a proxy writing that header).
   *
   * @throws IllegalArgumentException naming a bad entry or header, or the entries that trust every
   *     address when that is not allowed
   */
  public static ClientAddress trusting(String proxies, String forwardedHeader, boolean trustAllProxies) {
    return parse(Objects.requireNonNull(proxies, "proxies"),
        ProxyHeader.parse(Objects.requireNonNull(forwardedHeader, "forwardedHeader")), trustAllProxies);
  }

  static ClientAddress parse(String proxies, ProxyHeader header, boolean allowAll) {
    return new ClientAddress(TrustedProxies.parse(proxies, header, allowAll));
  }

  static ClientAddress of(TrustedProxies proxies) {
    return new ClientAddress(proxies);
  }

  TrustedProxies proxies() {
    return proxies;
  }

  ProxyHeader header() {
    return proxies.header();
  }

  boolean trustsEveryAddress() {
    return proxies.trustsEveryAddress();
  }

  boolean trusted(byte[] address) {
    return proxies.trusted(address);
  }

  /** The client's address, normalised (IPv4-mapped IPv6 as IPv4, RFC 5952 IPv6 text). */
  public String of(HttpServletRequest request) {
    return proxies.of(ServletRequestView.of(request));
  }

  /**
   * The rate limit key of the client: its IPv4 address, or its IPv6 /64 written as
   * {@code 2001:db8:1:2::/64}.
   */
  public String key(HttpServletRequest request) {
    return proxies.key(ServletRequestView.of(request));
  }

  @Override
  public String toString() {
    return proxies.toString();
  }
}
