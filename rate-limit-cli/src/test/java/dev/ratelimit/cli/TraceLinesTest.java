package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A trace's lines: read whole up to the bound, longer ones skipped to their end by chunks. */
class TraceLinesTest {

  private static List<TraceLines.Line> all(Reader in) throws IOException {
    TraceLines lines = new TraceLines(in);
    List<TraceLines.Line> all = new ArrayList<>();
    for (TraceLines.Line line = lines.next(); line != null; line = lines.next()) {
      all.add(line);
    }
    return all;
  }

  private static TraceLines.Text text(String text) {
    return new TraceLines.Text(text);
  }

  @Test
  void linesEndAsReadLineEndsThem() throws IOException {
    assertThat(all(new StringReader("a\nb\r\nc\rd\n\ne"))).containsExactly(
        text("a"), text("b"), text("c"), text("d"), text(""), text("e"));
    assertThat(all(new StringReader("a\n"))).containsExactly(text("a"));
    assertThat(all(new StringReader(""))).isEmpty();
    assertThat(all(new StringReader("\r\n\r\n"))).containsExactly(text(""), text(""));
  }

  @Test
  void aCrLfSplitBetweenChunks_isOneLineEnd() throws IOException {
    String first = "x".repeat(8191) + "\r"; // the chunk is 8192 characters
    assertThat(all(new StringReader(first + "\nnext\n"))).containsExactly(text("x".repeat(8191)), text("next"));
  }

  @Test
  void aLineOfTheBound_isReadWhole_oneCharacterMoreIsTooLong() throws IOException {
    String atBound = "a".repeat(TraceLines.MAX_CHARS);
    assertThat(all(new StringReader(atBound + "\n" + atBound + "b\nafter"))).containsExactly(
        text(atBound), new TraceLines.TooLong("a".repeat(TraceLines.SHOWN), TraceLines.MAX_CHARS + 1L), text("after"));
  }

  @Test
  void aTooLongLine_neverEndsOnHalfACharacter() throws IOException {
    String line = "a".repeat(TraceLines.SHOWN - 1) + "\uD83D\uDE00" + "b".repeat(TraceLines.MAX_CHARS);
    TraceLines.TooLong tooLong = (TraceLines.TooLong) all(new StringReader(line)).get(0);
    assertThat(tooLong.start()).isEqualTo("a".repeat(TraceLines.SHOWN - 1));
    assertThat(tooLong.length()).isEqualTo(line.length());
  }

  @Test
  void threeHundredMegabytesWithoutANewline_areOneLine_readInChunks() throws IOException {
    long length = 300L << 20;
    Generated endless = new Generated(length); // made as it is read: never in this heap
    assertThat(all(endless)).containsExactly(new TraceLines.TooLong("x".repeat(TraceLines.SHOWN), length));
    assertThat(endless.largestRead).isLessThanOrEqualTo(8192);
  }

  /** {@code length} characters of {@code x} and no newline, made as they are read. */
  static final class Generated extends Reader {
    private long left;
    int largestRead;

    Generated(long length) {
      this.left = length;
    }

    @Override
    public int read(char[] buffer, int offset, int length) {
      if (left == 0) {
        return -1;
      }
      int n = (int) Math.min(length, left);
      java.util.Arrays.fill(buffer, offset, offset + n, 'x');
      left -= n;
      largestRead = Math.max(largestRead, n);
      return n;
    }

    @Override
    public void close() {}
  }
}
