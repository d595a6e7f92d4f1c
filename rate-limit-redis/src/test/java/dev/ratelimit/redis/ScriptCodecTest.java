package dev.ratelimit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The script calls' encoding: every key and argument reaches Redis as the UTF-8 bytes
 * {@link String#getBytes} writes, behind a length prefix that is exactly their number (Lettuce
 * trusts an exact estimate and writes the prefix before the bytes: a wrong size would corrupt the
 * command stream), and a Cluster key's slot comes from those same bytes.
 */
class ScriptCodecTest {
  /** ASCII (nearly every argument), two- three- and four-byte characters, and text UTF-8 cannot carry. */
  static List<String> texts() {
    return List.of("", "ratelimit:{api:user-42}", "token-bucket 1a2b3c4d 10 3600000 10 0 0 - 0 0 0 0 0 1",
        "- l 1 0 l 2.5 0 r 1 -1", "ratelimit:{api:ключ}", "ratelimit:{api:日本語}", "ratelimit:{api:\uD83D\uDE00}",
        "\u007F\u0080\u07FF\u0800\uFFFF", "lone \uD800 high", "lone \uDFFF low", "high at the end \uD800",
        "\uD800é high then a two-byte char", "\uD800\uD800\uDC00 high, then a pair", "\uDC00\uD800 reversed pair",
        "?");
  }

  @ParameterizedTest
  @MethodSource("texts")
  void writesTheBytesGetBytesWrites_andSaysTheirNumberExactly(String text) {
    byte[] expected = text.getBytes(StandardCharsets.UTF_8);
    ByteBuf written = Unpooled.buffer(1);
    try {
      ScriptCodec.INSTANCE.encodeValue(text, written);
      assertThat(ByteBufBytes.of(written)).as("value bytes").isEqualTo(expected);
      assertThat(ScriptCodec.INSTANCE.estimateSize(text)).as("size").isEqualTo(expected.length);
      written.clear();
      ScriptCodec.INSTANCE.encodeKey(text, written);
      assertThat(ByteBufBytes.of(written)).as("key bytes").isEqualTo(expected);
    } finally {
      written.release();
    }
    assertThat(ByteBufBytes.of(ScriptCodec.INSTANCE.encodeKey(text))).as("key bytes for routing").isEqualTo(expected);
    assertThat(ScriptCodec.bytes(text)).isEqualTo(expected);
    assertThat(ScriptCodec.INSTANCE.isEstimateExact()).isTrue();
  }

  @ParameterizedTest
  @MethodSource("texts")
  void throughLettucesCommandArgs_eachArgumentIsItsLengthAndItsBytes(String text) {
    CommandArgs<String, String> args = new CommandArgs<>(ScriptCodec.INSTANCE).addValue("ratelimit_sha").add(1)
        .addKey(text).addValues(text, "- l 1 0");
    ByteBuf out = Unpooled.buffer(1);
    try {
      args.encode(out);
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      ByteBuf expected = Unpooled.buffer();
      bulk(expected, "ratelimit_sha".getBytes(StandardCharsets.US_ASCII));
      bulk(expected, "1".getBytes(StandardCharsets.US_ASCII));
      bulk(expected, bytes);
      bulk(expected, bytes);
      bulk(expected, "- l 1 0".getBytes(StandardCharsets.US_ASCII));
      assertThat(ByteBufBytes.of(out)).isEqualTo(ByteBufBytes.of(expected));
      expected.release();
    } finally {
      out.release();
    }
    // Lettuce routes a Cluster command by its first key's bytes; the batcher's lanes use the same
    ByteBuffer routed = args.getFirstEncodedKey();
    assertThat(SlotHash.getSlot(routed)).isEqualTo(SlotHash.getSlot(ScriptCodec.bytes(text)));
  }

  @Test
  void randomText_withSurrogatesAnywhere_isExactlyWhatGetBytesWrites() {
    SplittableRandom random = new SplittableRandom(16);
    char[] interesting = {'a', '{', '}', ' ', '?', '\u007F', '\u0080', '\u00E9', '\u07FF', '\u0800', '\u65E5', '\uFFFD',
        '\uFFFF', '\uD800', '\uDBFF', '\uDC00', '\uDFFF'};
    List<String> failures = new ArrayList<>();
    for (int round = 0; round < 20_000; round++) {
      char[] chars = new char[random.nextInt(0, 12)];
      for (int i = 0; i < chars.length; i++) {
        chars[i] = random.nextBoolean() ? interesting[random.nextInt(interesting.length)] : (char) random.nextInt(0x10000);
      }
      String text = new String(chars);
      byte[] expected = text.getBytes(StandardCharsets.UTF_8);
      ByteBuf written = Unpooled.buffer(1);
      ScriptCodec.INSTANCE.encodeValue(text, written);
      byte[] actual = ByteBufBytes.of(written);
      written.release();
      if (!Arrays.equals(actual, expected) || ScriptCodec.INSTANCE.estimateSize(text) != expected.length) {
        failures.add(text.chars().mapToObj(c -> String.format("\\u%04X", c)).reduce("", String::concat));
      }
    }
    assertThat(failures).as("texts encoded otherwise than String.getBytes, or sized wrong").isEmpty();
  }

  private static void bulk(ByteBuf into, byte[] bytes) {
    into.writeByte('$').writeBytes(Integer.toString(bytes.length).getBytes(StandardCharsets.US_ASCII))
        .writeBytes(new byte[] {'\r', '\n'}).writeBytes(bytes).writeBytes(new byte[] {'\r', '\n'});
  }

  /** The readable bytes of a buffer, left unread. */
  private static final class ByteBufBytes {
    static byte[] of(ByteBuf buffer) {
      byte[] bytes = new byte[buffer.readableBytes()];
      buffer.getBytes(buffer.readerIndex(), bytes);
      return bytes;
    }

    static byte[] of(ByteBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.duplicate().get(bytes);
      return bytes;
    }
  }
}
