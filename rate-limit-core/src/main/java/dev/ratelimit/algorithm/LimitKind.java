package dev.ratelimit.algorithm;

import dev.ratelimit.Limit;
import dev.ratelimit.internal.LongKeys;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one kind of limit does, in one place: its algorithm, its per-shard split and the arguments
 * a remote store sends to the kind's script. Every other place looks the kind up ({@link #of})
 * instead of switching on it. Its spec syntax (name, parameters, how a spec builds the limit) is
 * the value's, in {@code dev.ratelimit} (the package below this one); adding a kind means its
 * value record and spec form, a descriptor, its algorithm, its Lua twin and their tests
 * (CONTRIBUTING.md).
 *
 * <p>Not API: core's stores and the stores of other modules (through a qualified export) reach
 * it; each kind's descriptor is package-private.
 */
public abstract class LimitKind {
  /** The kinds in the order errors list them. */
  private static final Map<String, LimitKind> KINDS = index(new TokenBucketKind(), new GcraKind(),
      new FixedWindowKind(), new SlidingWindowKind(), new SlidingLogKind(), new QuotaKind());

  private final String spec;

  LimitKind(String spec) {
    this.spec = spec;
  }

  private static Map<String, LimitKind> index(LimitKind... kinds) {
    Map<String, LimitKind> index = new LinkedHashMap<>();
    for (LimitKind kind : kinds) {
      index.put(kind.spec, kind);
    }
    return index;
  }

  /** The descriptor of this limit's kind. */
  public static LimitKind of(Limit limit) {
    return KINDS.get(limit.kind());
  }

  /** The kind written {@code spec} in a spec ({@code token-bucket}, ...), or {@code null}. */
  public static LimitKind named(String spec) {
    return KINDS.get(spec);
  }

  /** Every kind, in the order errors list them. */
  public static List<LimitKind> all() {
    return List.copyOf(KINDS.values());
  }

  /** The kind as written in a spec: {@code token-bucket}, {@code gcra}, ... */
  public final String spec() {
    return spec;
  }

  /**
   * Whether a key's state is one number and a stamp, updated in place ({@link #word}); otherwise
   * an immutable object replaced on each consuming request ({@link #object}).
   */
  public abstract boolean inPlace();

  /** The in-place algorithm of this limit, for the kinds that are {@link #inPlace}. */
  public WordAlgorithm word(Limit limit) {
    throw new IllegalArgumentException(spec + " keeps its state as an object, not in place");
  }

  /** The object algorithm of this limit, for the kinds that are not {@link #inPlace}. */
  public ObjectAlgorithm<?> object(Limit limit) {
    throw new IllegalArgumentException(spec + " keeps its state in place, not as an object");
  }

  /**
   * One shard's share of a limit split into {@code shards} sub-keys: {@code rate/N},
   * {@code capacity/N}, {@code maxReserved/N}, not itself sharded.
   *
   * @throws IllegalArgumentException for kinds that can't be sharded
   */
  public Limit perShard(Limit limit, int shards) {
    throw new IllegalArgumentException(spec + " limits can't be sharded");
  }

  /**
   * The limit's windows, in milliseconds, for kinds whose keys' state is aligned to windows
   * (fixed windows); 1 for the others.
   */
  public long windowMillis(Limit limit) {
    return 1;
  }

  /** Whether each key has a window offset of its own ({@link #windowOffset} depends on the key). */
  public boolean offsetPerKey(Limit limit) {
    return false;
  }

  /**
   * Where a key's windows begin, in milliseconds past each multiple of the window: 0 for kinds
   * without windows.
   */
  public long windowOffset(Limit limit, String key) {
    return 0;
  }

  /**
   * The five values a remote store's script reads for this limit (docs/design.md §4.3), each a
   * {@link Double} (a number of units; infinity: unbounded), a {@link Long} (milliseconds, a
   * count) or a {@link String} (a word). The fifth is the window offset where there is one, to be
   * replaced per key when {@link #offsetPerKey}.
   */
  public abstract Object[] storeParameters(Limit limit);

  /**
   * Eight hex digits of SHA-256 over the kind, the first four store parameters as the store
   * writes them, and what else identifies the state (a fixed window's start or phase): stored
   * with each key's state, so that a name bound to another limit reads its old keys as fresh
   * instead of misreading them.
   */
  public final String fingerprint(Limit limit, String[] written) {
    StringBuilder text = new StringBuilder(spec);
    for (int i = 0; i < 4; i++) {
      text.append(' ').append(written[i]);
    }
    String alignment = alignment(limit);
    if (alignment != null) {
      text.append(' ').append(alignment);
    }
    return HexFormat.of().formatHex(LongKeys.sha256(text.toString()), 0, 4);
  }

  /**
   * Whether a key's state means the same under both limits: same kind, same store parameters and
   * alignment, so the same {@link #fingerprint}; they may differ in {@code mode} and
   * {@code failure} only (which no store reads).
   */
  public static boolean sameState(Limit a, Limit b) {
    LimitKind kind = of(a);
    return kind == of(b) && java.util.Arrays.equals(kind.storeParameters(a), kind.storeParameters(b))
        && java.util.Objects.equals(kind.alignment(a), kind.alignment(b));
  }

  /**
   * Whether a key's state under {@code previous} is carried over to {@code next} when one
   * replaces the other at runtime: for a token bucket, GCRA or fixed window replaced by one of
   * its kind (not with {@code phase=random}, whose windows move with the period), the units used
   * stay used, capped by the new capacity (docs/design.md §2.7). Other changes start fresh.
   */
  public static boolean carriesOver(Limit previous, Limit next) {
    LimitKind kind = of(next);
    return kind == of(previous) && kind.inPlace() && !kind.offsetPerKey(previous) && !kind.offsetPerKey(next);
  }

  /**
   * How deep in debt a take ({@link dev.ratelimit.Operation#TAKE}) may leave a key of this
   * limit: one capacity, or {@code maxReserved} when that is finite and deeper (docs/design.md
   * §2.4). The algorithms and the Lua scripts apply it; callers that split a take (shards) or
   * carry it to another backend (bucket4j) read it here.
   */
  public static double debtBound(Limit limit) {
    return Rules.debtBound(limit.capacity(), limit.maxReserved());
  }

  /** What identifies a limit's state beyond its parameters, or {@code null}. */
  String alignment(Limit limit) {
    return null;
  }

  @Override
  public String toString() {
    return spec;
  }
}
