package dev.ratelimit.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UrlPatternTest {

  @ParameterizedTest
  @CsvSource({
      "/api/*, /api, true",
      "/api/*, /api/, true",
      "/api/*, /api/users/7, true",
      "/api/*, /apix, false",
      "/api/*, /v1/api/x, false",
      "/login, /login, true",
      "/login, /login/, false",
      "/login, /Login, false",
      "*.json, /a/b.json, true",
      "*.json, /b.json/c, false",
      "*.json, /b.jsonx, false",
      "/*, /anything/at/all, true",
      "/, /anything, false",
  })
  void matches_followsServletUrlPatterns(String pattern, String path, boolean matches) {
    assertThat(UrlPattern.parse(pattern).matches(path)).isEqualTo(matches);
  }

  @ParameterizedTest
  @ValueSource(strings = {"api/*", "/api*", "/api/*/x", "*.", "*.js/x", "**", "*", "/a/**"})
  void parse_refusesWhatIsNoServletUrlPattern(String pattern) {
    assertThatThrownBy(() -> UrlPattern.parse(pattern)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bad url-pattern '" + pattern
            + "'; use an exact path (/login), a prefix (/api/*), an extension (*.json), /* or /");
  }
}
