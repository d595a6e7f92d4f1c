package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ratelimit.http.builder.MissingKey;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InitParamsTest {
  private static final String API = "api = token-bucket rate=100 period=1m";
  private static final String KINDS = "allowed: ip, header:NAME, principal, param:NAME, or the name of a class"
      + " implementing dev.ratelimit.servlet.KeyResolver";

  private static Map<String, String> params(String... namesAndValues) {
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      params.put(namesAndValues[i], namesAndValues[i + 1]);
    }
    return params;
  }

  private static FilterSettings read(String... namesAndValues) {
    return InitParams.read("rateLimit", params(namesAndValues), null);
  }

  private static List<String> matching(FilterSettings settings, String path) {
    return Arrays.stream(settings.rules().matching(path))
        .map(rule -> rule.pattern() + " " + rule.limit() + " key=" + rule.keyName() + " cost=" + rule.cost()).toList();
  }

  @Test
  void read_takesTheDesignDocumentsExample() {
    FilterSettings settings = read(
        "limits", "\n      api   = token-bucket rate=100 period=1m\n      login = token-bucket rate=5 period=15m\n  ",
        "rules", "\n      /api/*   api    key=ip\n      /login   login  key=param:user cost=1\n  ",
        "headers", "legacy,ietf",
        "trusted-proxies", "10.0.0.0/8, ::1",
        "missing-key", "deny");
    assertThat(settings.limiter().limits()).containsOnlyKeys("api", "login");
    assertThat(matching(settings, "/api/users")).containsExactly("/api/* api key=ip cost=1.0");
    assertThat(matching(settings, "/login")).containsExactly("/login login key=param:user cost=1.0");
    assertThat(matching(settings, "/")).isEmpty();
    assertThat(settings.missingKey()).isEqualTo(MissingKey.DENY);
  }

  @Test
  void read_entriesSplitOnLinesAndSemicolonsIgnoringComments() {
    FilterSettings settings = read(
        "limits", "# limits\napi = 10/1m ; burst = 5/1s # short\n\n   \nfiles=sliding-log rate=3 period=1h",
        "rules", "/api/* api; /api/* burst key=header:X-User cost=0.5  # both\n*.pdf files key=principal");
    assertThat(settings.limiter().limits()).containsOnlyKeys("api", "burst", "files");
    assertThat(matching(settings, "/api/x"))
        .containsExactly("/api/* api key=ip cost=1.0", "/api/* burst key=header:X-User cost=0.5");
    assertThat(matching(settings, "/docs/a.pdf")).containsExactly("*.pdf files key=principal cost=1.0");
  }

  @Test
  void read_shortFormIsOneLimitNamedAfterTheFilterForEveryRequest() {
    FilterSettings settings = read("limit", "token-bucket rate=10 period=1m", "key", "header:X-Api-Key", "cost", "2");
    assertThat(settings.limiter().limits()).containsOnlyKeys("rate-limit");
    assertThat(matching(settings, "/anything")).containsExactly("/* rate-limit key=header:X-Api-Key cost=2.0");
  }

  @Test
  void read_keyResolverIsTheDefaultKeyOfRulesWithoutOne() {
    FilterSettings settings = read("limits", API, "rules", "/t/* api; /u/* api key=ip",
        "key-resolver", TenantKey.class.getName());
    assertThat(matching(settings, "/t/x")).containsExactly("/t/* api key=" + TenantKey.class.getName() + " cost=1.0");
    assertThat(matching(settings, "/u/x")).containsExactly("/u/* api key=ip cost=1.0");
  }

  @Test
  void read_ruleKeyMayNameAClass() {
    FilterSettings settings = read("limits", API, "rules", "/t/* api key=" + TenantKey.class.getName());
    assertThat(ServletKeys.resolver(settings.rules().matching("/t/x")[0].key())).isInstanceOf(TenantKey.class);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "rateLimit | rate-limit",
      "RateLimitFilter | rate-limit-filter",
      "api limiter | api-limiter",
      "login_v2 | login-v2",
      "api | api",
      "__ | default",
  })
  void limitName_isTheFilterNameInKebabCase(String filterName, String limitName) {
    assertThat(InitParams.limitName(filterName)).isEqualTo(limitName);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
      // limits
      "limits | api = token-bucket rate=10 perod=1m | init-param 'limits', entry \"api = token-bucket rate=10 perod=1m\": unknown parameter 'perod' in \"token-bucket rate=10 perod=1m\"; allowed: rate, period, capacity, maxReserved, shards, failure, mode, lease",
      "limits | api = 10/1x | init-param 'limits', entry \"api = 10/1x\": bad value '1x' for period in \"10/1x\": duration '1x' is not valid; use 250ms, 10s, 1.5s, 5m, 1h, 1d or ISO-8601 such as PT1M",
      "limits | api token-bucket rate=10 period=1m | init-param 'limits', entry \"api token-bucket rate=10 period=1m\": expected NAME = SPEC, e.g. api = token-bucket rate=100 period=1m",
      "limits | 10/1m | init-param 'limits', entry \"10/1m\": expected NAME = SPEC, e.g. api = token-bucket rate=100 period=1m",
      "limits | Api = 10/1m | init-param 'limits', entry \"Api = 10/1m\": invalid limit name 'Api': names are kebab-case, lower-case letters, digits and '-' ([a-z0-9-]+)",
      "limits | api = 10/1m; api = 5/1s | init-param 'limits', entry \"api = 5/1s\": limit 'api' is defined twice",
      // rules
      "rules | /api/* api key=foo | init-param 'rules', entry \"/api/* api key=foo\": unknown key kind 'foo'; " + "allowed: ip, header:NAME, principal, param:NAME, or the name of a class implementing dev.ratelimit.servlet.KeyResolver",
      "rules | /api/* api key=header: | init-param 'rules', entry \"/api/* api key=header:\": bad header name '' in key 'header:'; expected header:NAME",
      "rules | /api/* api key=header:X(y) | init-param 'rules', entry \"/api/* api key=header:X(y)\": bad header name 'X(y)' in key 'header:X(y)'; expected header:NAME",
      "rules | /api/* api key=param: | init-param 'rules', entry \"/api/* api key=param:\": no parameter name in key 'param:'; expected param:NAME",
      "rules | /api/* api key=com.example.Missing | init-param 'rules', entry \"/api/* api key=com.example.Missing\": key resolver class 'com.example.Missing' not found",
      "rules | /api/* api key=java.lang.String | init-param 'rules', entry \"/api/* api key=java.lang.String\": key resolver class 'java.lang.String' does not implement dev.ratelimit.servlet.KeyResolver",
      "rules | /api/* api key=dev.ratelimit.servlet.NoDefaultConstructorKey | init-param 'rules', entry \"/api/* api key=dev.ratelimit.servlet.NoDefaultConstructorKey\": key resolver class 'dev.ratelimit.servlet.NoDefaultConstructorKey' needs a public no-argument constructor",
      "rules | /api/* apii | init-param 'rules', entry \"/api/* apii\": unknown limit 'apii'; configured limits: api",
      "rules | /api* api | init-param 'rules', entry \"/api* api\": bad url-pattern '/api*'; use an exact path (/login), a prefix (/api/*), an extension (*.json), /* or /",
      "rules | /api/* | init-param 'rules', entry \"/api/*\": expected PATTERN LIMIT [key=KEY] [cost=N] [methods=GET,POST] [charge-on=401,5xx] [refund-cancelled=true] [cost-header=X-Cost] [cost-header-pass=true]",
      "rules | /api/* api cost=x | init-param 'rules', entry \"/api/* api cost=x\": cost 'x' is not a number",
      "rules | /api/* api cost=-1 | init-param 'rules', entry \"/api/* api cost=-1\": cost must be a finite number, 0 or more, but was -1.0",
      "rules | /api/* api cost=NaN | init-param 'rules', entry \"/api/* api cost=NaN\": cost must be a finite number, 0 or more, but was NaN",
      "rules | /api/* api cost=101 | init-param 'rules', entry \"/api/* api cost=101\": cost 101 is above what limit 'api' can ever admit at once (100): every request would be denied",
      "rules | /api/* api weight=2 | init-param 'rules', entry \"/api/* api weight=2\": unknown option 'weight=2'; expected PATTERN LIMIT [key=KEY] [cost=N] [methods=GET,POST] [charge-on=401,5xx] [refund-cancelled=true] [cost-header=X-Cost] [cost-header-pass=true]",
      "rules | /api/* api key=ip key=principal | init-param 'rules', entry \"/api/* api key=ip key=principal\": 'key' is given twice",
      "rules | /api/* api refund-cancelled=true | init-param 'rules', entry \"/api/* api refund-cancelled=true\": refund-cancelled applies to a rule with charge-on, and this rule has none",
      "rules | /api/* api charge-on=401 refund-cancelled=yes | init-param 'rules', entry \"/api/* api charge-on=401 refund-cancelled=yes\": refund-cancelled 'yes' is not true or false",
      // single values
      "trusted-proxies | 10.0.0.0/33 | init-param 'trusted-proxies' = \"10.0.0.0/33\": '10.0.0.0/33' has a prefix length above 32",
      "trusted-proxies | 10.0.0.0/8, proxy.local | init-param 'trusted-proxies' = \"10.0.0.0/8, proxy.local\": 'proxy.local' is not an IP address or CIDR block (expected e.g. 10.0.0.0/8, 192.168.1.7, ::1 or 2001:db8::/32; host names are not resolved)",
      "headers | legacy,fancy | init-param 'headers' = \"legacy,fancy\": unknown header family 'fancy'; allowed: legacy, ietf, none, and epoch (X-RateLimit-Reset as absolute epoch seconds)",
      "missing-key | drop | init-param 'missing-key' = \"drop\": unknown policy 'drop'; allowed: global, skip, deny",
      "store-failure | sometimes | init-param 'store-failure' = \"sometimes\": unknown policy 'sometimes'; allowed: open, closed, local",
      "key-resolver | com.example.Missing | init-param 'key-resolver' = \"com.example.Missing\": key resolver class 'com.example.Missing' not found",
      "rule | /api/* api | unknown init-param 'rule'; allowed: limits, rules, limit, key, cost, headers, trusted-proxies, forwarded-header, trust-all-proxies, missing-key, store-failure, key-resolver",
      "forwarded-header | x-forwarded-host | init-param 'forwarded-header' = \"x-forwarded-host\": unknown forwarded header 'x-forwarded-host'; allowed: x-forwarded-for, forwarded, x-real-ip",
      "trust-all-proxies | yes | init-param 'trust-all-proxies' = \"yes\": expected true or false",
      "trusted-proxies | 10.0.0.0/8 0.0.0.0/0 | init-param 'trusted-proxies' = \"10.0.0.0/8 0.0.0.0/0\": trusted proxy entry '0.0.0.0/0' trusts every IPv4 address, so any client could choose its own key by writing X-Forwarded-For; list only your proxies' addresses, or, if every peer really is a proxy, allow it explicitly with trust-all-proxies=true",
  })
  void read_badValueNamesTheParamAndTheValue(String param, String value, String message) {
    Map<String, String> params = params("limits", API, "rules", "/api/* api");
    params.put(param, value);
    assertThatThrownBy(() -> InitParams.read("rateLimit", params, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @Test
  void read_forwardedHeaderChoosesTheOnlyHeaderRead() {
    FilterSettings settings = read("limits", API, "rules", "/* api", "trusted-proxies", "10.0.0.0/8",
        "forwarded-header", "forwarded");
    KeyResolver ip = ServletKeys.resolver(settings.rules().matching("/x")[0].key());
    FakeHttp.Request request = new FakeHttp.Request().from("10.0.0.1")
        .header("X-Forwarded-For", "198.51.100.66").header("Forwarded", "for=203.0.113.9");
    assertThat(ip.resolve(request.build())).isEqualTo("203.0.113.9");
    KeyResolver byDefault = ServletKeys.resolver(read("limits", API, "rules", "/* api", "trusted-proxies", "10.0.0.0/8")
        .rules().matching("/x")[0].key());
    assertThat(byDefault.resolve(request.build())).isEqualTo("198.51.100.66");
  }

  @Test
  void read_trustAllProxiesAllowsEntriesThatCoverEveryAddress() {
    FilterSettings settings = read("limits", API, "rules", "/* api key=ip", "trusted-proxies", "0.0.0.0/0 ::/0",
        "trust-all-proxies", "true");
    KeyResolver ip = ServletKeys.resolver(settings.rules().matching("/x")[0].key());
    assertThat(ip.resolve(new FakeHttp.Request().from("198.51.100.1").header("X-Forwarded-For", "203.0.113.9").build()))
        .isEqualTo("203.0.113.9");
    assertThat(read("limits", API, "rules", "/* api", "trusted-proxies", "10.0.0.0/8", "trust-all-proxies", "false")
        .rules().matching("/x")).hasSize(1);
  }

  @Test
  void init_trustAllProxiesWithoutAnEntryThatNeedsItRefusesToStart() {
    FilterConfig config = filterConfig("rateLimit", params("limits", API, "rules", "/* api",
        "trusted-proxies", "10.0.0.0/8", "trust-all-proxies", "true"), new ArrayList<>());
    assertThatThrownBy(() -> new RateLimitFilter().init(config)).isInstanceOf(ServletException.class)
        .hasMessage("rate limit filter 'rateLimit' not started: trust-all-proxies is set, and no trusted proxy entry"
            + " covers every address; it only allows such an entry (0.0.0.0/0, ::/0): remove it, or list the proxies");
  }

  @Test
  void read_keyOptionsAreWrittenBackInTheOrderTheyApply() {
    FilterSettings settings = read("limits", API, "rules", "/* api key=param:user|lower|trim|nfkc",
        "missing-key", "deny");
    assertThat(matching(settings, "/x")).containsExactly("/* api key=param:user|nfkc|trim|lower cost=1.0");
  }

  @Test
  void read_badKeyOptionNamesTheOptionAndTheKey() {
    // not in the table above: its column separator is the options' own
    String[][] cases = {
        {"param:user|upper", "unknown key option 'upper' in key 'param:user|upper'; allowed: lower, trim, nfkc"},
        {"header:X-User|trim|", "unknown key option '' in key 'header:X-User|trim|'; allowed: lower, trim, nfkc"},
        {"param:user|lower|lower", "key option 'lower' is given twice in key 'param:user|lower|lower'"},
        {"ip|lower", "key 'ip' takes no options: addresses are normalised already, in 'ip|lower'"},
        {"header:|lower", "bad header name '' in key 'header:'; expected header:NAME"},
        {"|lower", "unknown key kind ''; " + KINDS},
    };
    for (String[] bad : cases) {
      assertThatThrownBy(() -> read("limits", API, "rules", "/api/* api key=" + bad[0]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("init-param 'rules', entry \"/api/* api key=" + bad[0] + "\": " + bad[1]);
    }
    assertThatThrownBy(() -> read("limit", "10/1m", "key", "principal|Lower")).hasMessage("init-param 'key' ="
        + " \"principal|Lower\": unknown key option 'Lower' in key 'principal|Lower'; allowed: lower, trim, nfkc");
  }

  @Test
  void read_shortFormErrorsNameTheirParam() {
    assertThatThrownBy(() -> read("limit", "10/1x")).hasMessage("init-param 'limit' = \"10/1x\": bad value '1x' for"
        + " period in \"10/1x\": duration '1x' is not valid; use 250ms, 10s, 1.5s, 5m, 1h, 1d or ISO-8601 such as PT1M");
    assertThatThrownBy(() -> read("limit", "10/1m", "key", "ipv4")).hasMessage("init-param 'key' = \"ipv4\": unknown"
        + " key kind 'ipv4'; " + KINDS);
    assertThatThrownBy(() -> read("limit", "10/1m", "cost", "11")).hasMessage("init-param 'cost' = \"11\": cost 11 is"
        + " above what limit 'rate-limit' can ever admit at once (10): every request would be denied");
    assertThatThrownBy(() -> read("limit", "10/1m capacity=0.5")).hasMessage("init-param 'limit' = \"10/1m"
        + " capacity=0.5\": cost 1 is above what limit 'rate-limit' can ever admit at once (0.5): every request would be denied");
    assertThatThrownBy(() -> read("limit", "10/1m", "limits", "rate-limit = 5/1m")).hasMessage("init-param 'limit'"
        + " makes a limit named after the filter, 'rate-limit', and init-param 'limits' defines 'rate-limit' too; rename one");
    assertThatThrownBy(() -> read("limits", API, "rules", "/* api", "key", "ip")).hasMessage("init-param 'key' belongs"
        + " to the short form and needs init-param 'limit'; with 'rules', write key= in each rule");
  }

  @Test
  void read_withoutRulesRefusesToStart() {
    String message = "no rules: give init-param 'rules' (PATTERN LIMIT [key=KEY] [cost=N] [methods=GET,POST] [charge-on=401,5xx] [refund-cancelled=true] [cost-header=X-Cost] [cost-header-pass=true] per line) or 'limit'"
        + " (one limit for every request the filter mapping covers)";
    assertThatThrownBy(() -> read("limits", API)).hasMessage(message);
    assertThatThrownBy(() -> read()).hasMessage(message);
    assertThatThrownBy(() -> read("limits", API, "rules", "  # nothing yet\n ;")).hasMessage(message);
  }

  @Test
  void read_storeAttributeMustBeAStore() {
    assertThatThrownBy(() -> InitParams.read("rateLimit", params("limits", API, "rules", "/* api"), "redis://x"))
        .hasMessage("servlet context attribute 'dev.ratelimit.servlet.store' holds a java.lang.String, not a"
            + " dev.ratelimit.store.RateLimitStore");
  }

  @Test
  void init_failsWithAServletExceptionNamingTheFilterParamAndValueAndLogsIt() {
    List<String> log = new ArrayList<>();
    FilterConfig config = filterConfig("rateLimit", params("limits", API, "rules", "/api/* api", "headers", "legacy,fancy"), log);
    assertThatThrownBy(() -> new RateLimitFilter().init(config))
        .isInstanceOf(ServletException.class)
        .hasMessage("rate limit filter 'rateLimit' not started: init-param 'headers' = \"legacy,fancy\": unknown header"
            + " family 'fancy'; allowed: legacy, ietf, none, and epoch (X-RateLimit-Reset as absolute epoch seconds)");
    assertThat(log).singleElement().asString().startsWith("rate limit filter 'rateLimit' not started: init-param 'headers'");
  }

  @Test
  void init_ofABuiltFilterRefusesInitParams() {
    RateLimitFilter filter = RateLimitFilter.builder().limit("api", "10/1m").rule("/*", "api").build();
    FilterConfig config = filterConfig("rateLimit", params("rules", "/x api"), new ArrayList<>());
    assertThatThrownBy(() -> filter.init(config)).isInstanceOf(ServletException.class)
        .hasMessage("rate limit filter 'rateLimit' is configured by its builder; remove its init-param 'rules'");
  }

  static FilterConfig filterConfig(String name, Map<String, String> params, List<String> log) {
    ServletContext context = (ServletContext) Proxy.newProxyInstance(InitParamsTest.class.getClassLoader(),
        new Class<?>[] {ServletContext.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getAttribute" -> null;
          case "log" -> log.add((String) args[0]);
          default -> throw new UnsupportedOperationException(method.getName());
        });
    return (FilterConfig) Proxy.newProxyInstance(InitParamsTest.class.getClassLoader(),
        new Class<?>[] {FilterConfig.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getFilterName" -> name;
          case "getServletContext" -> context;
          case "getInitParameter" -> params.get((String) args[0]);
          case "getInitParameterNames" -> Collections.enumeration(params.keySet());
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
