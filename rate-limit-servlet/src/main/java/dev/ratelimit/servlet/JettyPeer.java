package dev.ratelimit.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.eclipse.jetty.ee10.servlet.ServletApiRequest;

/**
 * The text of an IPv4 peer on Jetty 12 (ee10)'s own request, kept per address. Jetty's
 * {@code getRemoteAddr} formats the connection's address anew on every call (a
 * {@code StringBuilder}, a string and three arrays); the {@code ip} key reads it on every request,
 * from the same few addresses (one per client, and a connection's address is one object). So the
 * text is made once per address, by the same {@link InetAddress#getHostAddress} Jetty calls, and
 * kept in a small table: {@value #SLOTS} slots, one address each, the newest in a slot replacing the
 * one before. Many distinct clients just miss (the text is made per request): the table never grows.
 */
final class JettyPeer {
  static final int SLOTS = 256;

  /** An address and its text; final fields, so safe to share through the table's races. */
  private record Text(Inet4Address address, String text) {}

  private static final Text[] KEPT = new Text[SLOTS];

  private JettyPeer() {}

  /** The dotted quad of the request's peer when it is an IPv4 address, else null (then Jetty's text is read). */
  static String ipv4(HttpServletRequest request) {
    SocketAddress remote = ((ServletApiRequest) request).getRequest().getConnectionMetaData().getRemoteSocketAddress();
    // as Jetty's Request.getRemoteAddr: an unresolved address has none, and its text is the host string
    if (remote instanceof InetSocketAddress socket && socket.getAddress() instanceof Inet4Address address) {
      return text(address);
    }
    return null;
  }

  static String text(Inet4Address address) {
    int hash = address.hashCode();
    int slot = (hash ^ hash >>> 16) & (SLOTS - 1);
    Text kept = KEPT[slot];
    // equals compares the address, whatever hashCode is made of
    if (kept != null && (kept.address() == address || kept.address().equals(address))) {
      return kept.text();
    }
    String text = address.getHostAddress();
    KEPT[slot] = new Text(address, text);
    return text;
  }
}
