package dev.ratelimit.redis;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * How the script calls' keys and arguments become bytes: UTF-8, as {@link String#getBytes}
 * writes it (a lone surrogate as {@code ?}), with the size known exactly before writing.
 *
 * <p>Why not Lettuce's {@code StringCodec.UTF8}: its size estimate for UTF-8 is an upper bound,
 * so {@code CommandArgs} encodes every argument into a temporary pooled buffer and copies it
 * (and netty's leak detector records a stack trace for 1 in 128 such buffers): about a dozen per
 * script call, on Lettuce's event loop. An exact size lets {@code CommandArgs} write the length
 * and the bytes straight into the outgoing buffer. Our arguments are nearly always ASCII (the
 * limit, the request lists, the script's name, most keys), which is one byte per char; other
 * text is encoded by {@link String#getBytes} for its size and again to write it, the same bytes
 * both times by construction.
 *
 * <p>The same bytes are what a Cluster's slot is computed from ({@link #encodeKey(String)},
 * which Lettuce routes a command by, and {@link #bytes}, which the batcher's lanes use), so a key
 * is always routed, batched and stored by one encoding.
 */
final class ScriptCodec implements RedisCodec<String, String>, ToByteBufEncoder<String, String> {
  static final ScriptCodec INSTANCE = new ScriptCodec();

  private ScriptCodec() {}

  /** The bytes Redis receives for this text. */
  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Exactly the number of bytes {@link #write} writes. */
  static int size(String text) {
    return isAscii(text) ? text.length() : bytes(text).length;
  }

  /** Writes the text's bytes: {@link #bytes}, written without a copy when it is ASCII. */
  static void write(String text, ByteBuf target) {
    if (isAscii(text)) {
      ByteBufUtil.writeAscii(target, text);
    } else {
      target.writeBytes(bytes(text));
    }
  }

  private static boolean isAscii(String text) {
    for (int i = 0, n = text.length(); i < n; i++) {
      if (text.charAt(i) >= 0x80) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int estimateSize(Object keyOrValue) {
    return keyOrValue == null ? 0 : size((String) keyOrValue);
  }

  @Override
  public boolean isEstimateExact() {
    return true;
  }

  @Override
  public void encodeKey(String key, ByteBuf target) {
    if (key != null) {
      write(key, target);
    }
  }

  @Override
  public void encodeValue(String value, ByteBuf target) {
    if (value != null) {
      write(value, target);
    }
  }

  @Override
  public ByteBuffer encodeKey(String key) {
    return key == null ? ByteBuffer.allocate(0) : ByteBuffer.wrap(bytes(key));
  }

  @Override
  public ByteBuffer encodeValue(String value) {
    return value == null ? ByteBuffer.allocate(0) : ByteBuffer.wrap(bytes(value));
  }

  @Override
  public String decodeKey(ByteBuffer bytes) {
    return StandardCharsets.UTF_8.decode(bytes).toString();
  }

  @Override
  public String decodeValue(ByteBuffer bytes) {
    return StandardCharsets.UTF_8.decode(bytes).toString();
  }
}
