package dev.ratelimit.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * For the places that keep long keys out of a store (DESIGN.md §2.7: keys longer than 256 bytes
 * are hashed): the UTF-8 length test and the SHA-256 digest, in one place. Each caller keeps its
 * own form of the hashed key.
 */
public final class LongKeys {
  private LongKeys() {}

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

  /** The SHA-256 digest of {@code text} in UTF-8. */
  public static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
