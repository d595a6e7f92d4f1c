package dev.ratelimit.internal;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Keys of bounded size, in one place (docs/design.md §6.2, §4.3): a key longer than {@link #MAX_KEY_BYTES}
 * UTF-8 bytes, or one that UTF-8 cannot encode as it is (a lone surrogate, which
 * {@link String#getBytes} writes as {@code ?}), is replaced by its SHA-256 over a lossless
 * encoding, so distinct strings never share a bucket short of a SHA-256 collision. The limiter
 * bounds every key this way before any store sees it; the servlet filter's keys and the Redis
 * key names use the same test and digest.
 */
public final class LongKeys {
  /** The longest key, in UTF-8 bytes, that reaches a store as it is. */
  public static final int MAX_KEY_BYTES = 256;
  private static final String HASHED = "sha256:";

  private LongKeys() {}

  /**
   * The key as stores see it: as it is if {@link #keptAsIs kept}, else {@code sha256:} and the
   * hex digest (71 bytes). A key that already has that form is kept, so bounding twice changes
   * nothing; a caller sending {@code sha256:} and a long key's digest shares that key's bucket,
   * which only a caller who knows the long key can do, and it could send that key.
   */
  public static String bounded(String key) {
    return keptAsIs(key, MAX_KEY_BYTES) ? key : HASHED + HexFormat.of().formatHex(sha256(key));
  }

  /** Whether {@code text} is at most {@code maxBytes} bytes in UTF-8 and has no lone surrogate. */
  public static boolean keptAsIs(String text, int maxBytes) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isSurrogate(c)) {
        if (!Character.isHighSurrogate(c) || i + 1 == text.length() || !Character.isLowSurrogate(text.charAt(++i))) {
          return false;
        }
      }
    }
    return !longerThan(text, maxBytes);
  }

  /**
   * Whether {@code text} takes more than {@code maxBytes} bytes in UTF-8 (as
   * {@link String#getBytes} encodes it). Counts without encoding, and not at all when the length
   * alone decides: a char is 1 to 3 bytes.
   */
  public static boolean longerThan(String text, int maxBytes) {
    if ((long) text.length() * 3 <= maxBytes) {
      return false;
    }
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (!Character.isSurrogate(c)) {
        bytes += 3;
      } else if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 1; // a lone surrogate: encoded as '?'
      }
    }
    return bytes > maxBytes;
  }

  /**
   * The SHA-256 digest of {@code text} in UTF-8, lossless: a lone surrogate is written as the
   * three bytes of its code point (as WTF-8 does), which no well-formed string's UTF-8 contains,
   * instead of the {@code ?} of {@link String#getBytes}. Well-formed text hashes as plain UTF-8.
   */
  public static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(lossless(text));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  private static byte[] lossless(String text) {
    if (keptAsIs(text, Integer.MAX_VALUE)) {
      return text.getBytes(StandardCharsets.UTF_8);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() * 3);
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isSurrogate(c)) {
        continue;
      }
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        i++;
        continue;
      }
      out.writeBytes(text.substring(start, i).getBytes(StandardCharsets.UTF_8));
      out.write(0xe0 | c >> 12);
      out.write(0x80 | c >> 6 & 0x3f);
      out.write(0x80 | c & 0x3f);
      start = i + 1;
    }
    out.writeBytes(text.substring(start).getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
