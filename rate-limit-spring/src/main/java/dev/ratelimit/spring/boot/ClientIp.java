package dev.ratelimit.spring.boot;

import dev.ratelimit.http.IpAddress;
import dev.ratelimit.http.ProxyHeader;
import dev.ratelimit.http.TrustedProxies;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code #clientAddress} in a filter rule's SpEL: the client's address as the {@code ip} key
 * finds it (docs/design.md §6.3), the peer, or behind {@code ratelimit.trusted-proxies} the first
 * untrusted hop of the one forwarded header they write; so a client cannot choose it by sending
 * headers. Its text is the address itself (IPv4-mapped IPv6 as IPv4, IPv6 in RFC 5952 form, not
 * grouped by /64 as the key is): {@code condition: "#{!#clientAddress.in('10.0.0.0/8, fd00::/8')}"}.
 */
public final class ClientIp {
  /** Block lists kept parsed: an expression's lists are literals, so a few; past this many, parsed per call. */
  private static final int KEPT_BLOCK_LISTS = 64;
  private static final Map<String, TrustedProxies> BLOCK_LISTS = new ConcurrentHashMap<>();

  private final String address;

  private ClientIp(String address) {
    this.address = address;
  }

  /** @param address the client's address as the front end's trusted proxies resolve it ({@code TrustedProxies.of}) */
  public static ClientIp of(String address) {
    return new ClientIp(address == null ? "" : address);
  }

  /** The address: {@code 203.0.113.7}, {@code 2001:db8::17}; the peer as the server gave it when that is no address. */
  public String address() {
    return address;
  }

  /**
   * Whether the address is in one of these addresses and CIDR blocks, comma- or space-separated
   * ({@code "10.0.0.0/8, fd00::/8"}, as {@code trusted-proxies} takes them). A peer that is no IP
   * address is in none.
   *
   * @throws IllegalArgumentException naming an entry that is no address or block (the
   *     expression then fails on the request, as docs/design.md §7.3 says what follows)
   */
  public boolean in(String blocks) {
    byte[] client = IpAddress.parse(address);
    return client != null && blockList(blocks).trusted(client);
  }

  private static TrustedProxies blockList(String blocks) {
    TrustedProxies parsed = BLOCK_LISTS.get(blocks);
    if (parsed == null) {
      // a list of blocks is what trusted-proxies parses; every address may be covered here (0.0.0.0/0)
      parsed = TrustedProxies.parse(blocks, ProxyHeader.X_FORWARDED_FOR, true);
      if (BLOCK_LISTS.size() < KEPT_BLOCK_LISTS) {
        BLOCK_LISTS.putIfAbsent(blocks, parsed);
      }
    }
    return parsed;
  }

  @Override
  public String toString() {
    return address;
  }
}
