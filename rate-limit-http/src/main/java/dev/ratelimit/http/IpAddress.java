package dev.ratelimit.http;

import java.util.Arrays;

/**
 * IP address literals: strict parsing (no host names, so never a DNS lookup), IPv4-mapped IPv6
 * normalised to IPv4, and the text forms used as keys. Addresses are 4 or 16 bytes.
 */
public final class IpAddress {
  private IpAddress() {}

  /**
   * Parses an IPv4 dotted quad or an IPv6 literal (RFC 4291, with {@code ::} and a trailing
   * dotted quad; an optional {@code %zone} is ignored). {@code ::ffff:a.b.c.d} comes back as the
   * IPv4 address, so a client has one key whichever way its address is written.
   *
   * @return 4 or 16 bytes, or {@code null} when the text is not an address
   */
  public static byte[] parse(String text) {
    if (text == null || text.isEmpty() || text.length() > 64) {
      return null;
    }
    if (text.indexOf(':') < 0) {
      return parseV4(text, 0, text.length());
    }
    byte[] v6 = parseV6(text);
    return v6 == null ? null : unmapped(v6);
  }

  /** {@link #parse} for text that may be bracketed, as some containers give IPv6 peers: {@code [::1]}. */
  static byte[] parsePeer(String text) {
    if (text != null && text.length() > 2 && text.charAt(0) == '[' && text.charAt(text.length() - 1) == ']') {
      return parse(text.substring(1, text.length() - 1));
    }
    return parse(text);
  }

  /** The IPv4 address inside an IPv4-mapped IPv6 address ({@code ::ffff:0:0/96}), else the address. */
  static byte[] unmapped(byte[] address) {
    if (address.length != 16) {
      return address;
    }
    for (int i = 0; i < 10; i++) {
      if (address[i] != 0) {
        return address;
      }
    }
    if (address[10] != (byte) 0xff || address[11] != (byte) 0xff) {
      return address;
    }
    return Arrays.copyOfRange(address, 12, 16);
  }

  /** Dotted quad, or the RFC 5952 canonical IPv6 text ({@code 2001:db8::1}). */
  static String format(byte[] address) {
    if (address.length == 4) {
      return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "." + (address[3] & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = (address[2 * i] & 0xff) << 8 | (address[2 * i + 1] & 0xff);
    }
    // RFC 5952: compress the longest run of two or more zero groups, the first one on a tie
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder text = new StringBuilder(39);
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        text.append("::");
        i += bestLength - 1;
        continue;
      }
      if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
        text.append(':');
      }
      text.append(Integer.toHexString(groups[i]));
    }
    return text.toString();
  }

  /**
   * The rate limit key of an address: IPv4 as is; IPv6 grouped by its /64, because one client
   * (one host, one home network) usually holds a whole /64 and could otherwise rotate through it.
   */
  static String key(byte[] address) {
    if (address.length == 4) {
      return format(address);
    }
    byte[] prefix = Arrays.copyOf(address, 16);
    Arrays.fill(prefix, 8, 16, (byte) 0);
    return format(prefix) + "/64";
  }

  /** Whether the whole text is a dotted quad as {@link #parseV4} reads it; allocates nothing. */
  static boolean isDottedQuad(String text) {
    int length = text.length();
    if (length < 7 || length > 15) {
      return false;
    }
    int parts = 0;
    int at = 0;
    while (at < length) {
      int start = at;
      int value = 0;
      while (at < length && at - start < 4 && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
        value = value * 10 + (text.charAt(at) - '0');
        at++;
      }
      int digits = at - start;
      if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && text.charAt(start) == '0')) {
        return false;
      }
      parts++;
      if (at < length) {
        if (text.charAt(at) != '.' || parts == 4) {
          return false;
        }
        at++;
        if (at == length) {
          return false;
        }
      }
    }
    return parts == 4;
  }

  /** A dotted quad in {@code text[from, to)}: four decimal octets, no leading zeros, no spaces. */
  static byte[] parseV4(String text, int from, int to) {
    byte[] address = new byte[4];
    int part = 0;
    int at = from;
    while (part < 4) {
      int start = at;
      int value = 0;
      while (at < to && at - start < 4) {
        char c = text.charAt(at);
        if (c < '0' || c > '9') {
          break;
        }
        value = value * 10 + (c - '0');
        at++;
      }
      int digits = at - start;
      // a leading zero could mean octal to some parsers: refuse it rather than guess
      if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && text.charAt(start) == '0')) {
        return null;
      }
      address[part++] = (byte) value;
      if (part < 4) {
        if (at >= to || text.charAt(at) != '.') {
          return null;
        }
        at++;
      }
    }
    return at == to ? address : null;
  }

  /** An IPv6 literal (16 bytes, not unmapped), or {@code null}. */
  private static byte[] parseV6(String text) {
    int end = text.indexOf('%');
    if (end == 0) {
      return null;
    }
    if (end < 0) {
      end = text.length();
    }
    byte[] address = new byte[16];
    int written = 0; // bytes filled
    int gap = -1; // where "::" stands, in bytes
    int at = 0;
    if (text.startsWith("::")) {
      gap = 0;
      at = 2;
      if (at == end) {
        return address;
      }
    } else if (text.charAt(0) == ':') {
      return null;
    }
    while (at < end) {
      if (written == 16) {
        return null;
      }
      int start = at;
      int value = 0;
      while (at < end && at - start < 5) {
        int digit = Character.digit(text.charAt(at), 16);
        if (digit < 0) {
          break;
        }
        value = value << 4 | digit;
        at++;
      }
      if (at < end && text.charAt(at) == '.') {
        // a trailing dotted quad fills the last 32 bits
        if (written > 12) {
          return null;
        }
        byte[] v4 = parseV4(text, start, end);
        if (v4 == null) {
          return null;
        }
        System.arraycopy(v4, 0, address, written, 4);
        written += 4;
        at = end;
        break;
      }
      int digits = at - start;
      if (digits == 0 || digits > 4) {
        return null;
      }
      address[written++] = (byte) (value >> 8);
      address[written++] = (byte) value;
      if (at == end) {
        break;
      }
      if (text.charAt(at) != ':') {
        return null;
      }
      at++;
      if (at < end && text.charAt(at) == ':') {
        if (gap >= 0) {
          return null; // "::" at most once
        }
        gap = written;
        at++;
        if (at == end) {
          break;
        }
      } else if (at == end) {
        return null; // a single trailing ':'
      }
    }
    if (gap < 0) {
      return written == 16 ? address : null;
    }
    if (written == 16) {
      return null; // "::" must stand for at least one group
    }
    int tail = written - gap;
    System.arraycopy(address, gap, address, 16 - tail, tail);
    Arrays.fill(address, gap, 16 - tail, (byte) 0);
    return address;
  }
}
