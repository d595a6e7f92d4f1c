package dev.ratelimit.webflux;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A client on a plain socket, for what an HTTP client library hides: it sends a request and may
 * {@link #hangUp} before the answer, closing with a reset, as a killed client does; or read the
 * answer. Reads time out after a guard against a hang, not a timing.
 */
final class RawClient implements AutoCloseable {
  private static final int GUARD_MILLIS = 30_000;

  private final Socket socket;

  /** The answer as read: status, headers (lower-case names) and body. */
  record Reply(int status, Map<String, String> headers, String body) {}

  private RawClient(Socket socket) {
    this.socket = socket;
  }

  /** Sends {@code GET path} on a new connection to the port. */
  static RawClient get(int port, String path) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(GUARD_MILLIS);
    socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
    return new RawClient(socket);
  }

  /** Goes away without reading the answer: the connection is reset at once. */
  void hangUp() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  /** Reads the answer's head and its {@code Content-Length} body. */
  Reply read() throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("connection closed before the head ended: " + head);
      }
      head.write(b);
      matched = b == "\r\n\r\n".charAt(matched) ? matched + 1 : b == '\r' ? 1 : 0;
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers.put(lines[i].substring(0, colon).strip().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).strip());
    }
    byte[] body = in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
    return new Reply(status, headers, new String(body, StandardCharsets.UTF_8));
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
