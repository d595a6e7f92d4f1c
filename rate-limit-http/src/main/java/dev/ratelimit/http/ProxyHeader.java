package dev.ratelimit.http;

import java.util.List;
import java.util.Locale;

/**
 * The one header the trusted proxies write the client's address in ({@code forwarded-header}).
 * Only that header is read: a client can send any of the others, and a proxy passes them on
 * untouched, so a second header consulted would be a second way for a client to pick its key.
 */
public enum ProxyHeader {
  /** Each proxy appends the address it received from: nginx, HAProxy, cloud load balancers. The default. */
  X_FORWARDED_FOR("x-forwarded-for", "X-Forwarded-For"),
  /** RFC 7239: each proxy appends an element whose {@code for=} is the address it received from. */
  FORWARDED("forwarded", "Forwarded"),
  /** One address, set by the nearest proxy; when the request carries several, only the last is read. */
  X_REAL_IP("x-real-ip", "X-Real-IP");

  public static final String ALLOWED = "x-forwarded-for, forwarded, x-real-ip";

  private final String spec;
  private final String name;

  ProxyHeader(String spec, String name) {
    this.spec = spec;
    this.name = name;
  }

  /** @throws IllegalArgumentException naming the value and the headers allowed */
  public static ProxyHeader parse(String value) {
    String wanted = value.strip().toLowerCase(Locale.ROOT);
    for (ProxyHeader header : values()) {
      if (header.spec.equals(wanted)) {
        return header;
      }
    }
    throw new IllegalArgumentException("unknown forwarded header '" + value + "'; allowed: " + ALLOWED);
  }

  /** The hops this header lists, nearest last; what {@link TrustedProxies} walks from the right. */
  List<byte[]> hops(Request request) {
    List<String> lines = request.headers(name);
    return switch (this) {
      case X_FORWARDED_FOR -> ForwardedHeaders.xForwardedFor(lines);
      case FORWARDED -> ForwardedHeaders.forwarded(lines);
      case X_REAL_IP -> {
        // a proxy that sets the header replaces a client's; one that adds it puts its own last
        List<byte[]> hops = ForwardedHeaders.xForwardedFor(lines);
        yield hops.isEmpty() ? hops : hops.subList(hops.size() - 1, hops.size());
      }
    };
  }

  /** The header's name as proxies write it, for messages. */
  public String headerName() {
    return name;
  }

  public String spec() {
    return spec;
  }
}
