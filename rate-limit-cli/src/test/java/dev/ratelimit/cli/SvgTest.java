package dev.ratelimit.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SvgTest {

  @Test
  void escape_makesTextSafeInXml() {
    assertThat(Svg.escape("a<b>&\"c'")).isEqualTo("a&lt;b&gt;&amp;&quot;c&apos;");
    assertThat(Svg.escape("x\u0001y\uD800z\tok")).isEqualTo("x\uFFFDy\uFFFDz\tok");
    assertThat(Svg.escape("emoji \uD83D\uDE00")).isEqualTo("emoji \uD83D\uDE00");
  }

  @Test
  void number_writesCoordinatesToATenth() {
    assertThat(Svg.number(12.0)).isEqualTo("12");
    assertThat(Svg.number(12.345)).isEqualTo("12.3");
    assertThat(Svg.number(-0.01)).isEqualTo("0");
  }

  @Test
  void elements_areNestedAndEscaped() {
    String svg = new Svg().open("g", "class", "a&b").text("text", "<key>", "x", 1.25).empty("line", "x1", 3)
        .close("g").toString();

    assertThat(svg).isEqualTo("<g class=\"a&amp;b\">\n  <text x=\"1.3\">&lt;key&gt;</text>\n  <line x1=\"3\"/>\n</g>\n");
  }
}
