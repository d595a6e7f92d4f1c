package dev.ratelimit.http;

import java.text.Normalizer;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A key read through the options written after it, {@code param:user|lower|trim}: spellings a
 * person means as one name share one bucket. The options apply in a fixed order, {@code nfkc},
 * {@code trim}, {@code lower}, whatever the order written; a key nothing is left of is missing.
 */
record NormalisedKey(RequestKey source, Set<Option> options) implements RequestKey {

  /** What may follow a key's {@code |}, in the order applied. */
  enum Option {
    /** Unicode compatibility composition (NFKC): full-width {@code ａｌｉｃｅ}, ligatures, as plain letters. */
    NFKC {
      @Override
      String apply(String key) {
        return Normalizer.normalize(key, Normalizer.Form.NFKC);
      }
    },
    /** Drops leading and trailing white space, controls (NUL included) and invisible formatting (U+200B, U+FEFF). */
    TRIM {
      @Override
      String apply(String key) {
        int start = 0;
        int end = key.length();
        while (start < end && blank(key.codePointAt(start))) {
          start += Character.charCount(key.codePointAt(start));
        }
        while (end > start && blank(key.codePointBefore(end))) {
          end -= Character.charCount(key.codePointBefore(end));
        }
        return key.substring(start, end);
      }

      private boolean blank(int c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.isISOControl(c)
            || Character.getType(c) == Character.FORMAT;
      }
    },
    /** Lower case, the same in every locale ({@code Locale.ROOT}): {@code Alice} is {@code alice}. */
    LOWER {
      @Override
      String apply(String key) {
        return key.toLowerCase(Locale.ROOT);
      }
    };

    static final String ALLOWED = "lower, trim, nfkc";

    abstract String apply(String key);

    String spec() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  NormalisedKey {
    Objects.requireNonNull(source, "source");
    if (options.isEmpty()) {
      throw new IllegalArgumentException("no key option; allowed: " + Option.ALLOWED);
    }
    options = Set.copyOf(options);
  }

  /**
   * The source read through the {@code |}-separated options, such as {@code lower|trim}.
   *
   * @param spec the whole key as written, for messages
   * @throws IllegalArgumentException naming an unknown, empty or repeated option
   */
  static NormalisedKey parse(RequestKey source, String options, String spec) {
    Set<Option> chosen = EnumSet.noneOf(Option.class);
    for (String name : options.split("\\|", -1)) {
      Option option = null;
      for (Option candidate : Option.values()) {
        if (candidate.spec().equals(name)) {
          option = candidate;
        }
      }
      if (option == null) {
        throw new IllegalArgumentException("unknown key option '" + name + "' in key '" + spec + "'; allowed: "
            + Option.ALLOWED);
      }
      if (!chosen.add(option)) {
        throw new IllegalArgumentException("key option '" + name + "' is given twice in key '" + spec + "'");
      }
    }
    return new NormalisedKey(source, chosen);
  }

  @Override
  public String resolve(Request request) {
    String key = source.resolve(request);
    if (key == null) {
      return null;
    }
    for (Option option : Option.values()) {
      if (options.contains(option)) {
        key = option.apply(key);
      }
    }
    return key.isEmpty() ? null : key;
  }

  /** The key as a rule writes it, options in the order they apply. */
  @Override
  public String toString() {
    return source + EnumSet.copyOf(options).stream().map(option -> "|" + option.spec())
        .collect(Collectors.joining());
  }
}
