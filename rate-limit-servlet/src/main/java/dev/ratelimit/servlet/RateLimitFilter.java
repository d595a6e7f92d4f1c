package dev.ratelimit.servlet;

import dev.ratelimit.StoreUnavailableException;
import dev.ratelimit.http.Charges;
import dev.ratelimit.http.CostHeader;
import dev.ratelimit.http.Request;
import dev.ratelimit.http.RuleOptions;
import dev.ratelimit.http.UrlPattern;
import dev.ratelimit.http.builder.FilterBuilder;
import dev.ratelimit.http.builder.MissingKey;
import dev.ratelimit.limiter.RateLimiter;
import dev.ratelimit.store.RateLimitStore;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Rate limits HTTP requests: each request matching a rule spends from its key's bucket; every
 * limited response carries the rate limit headers, and a denied request gets 429 with
 * {@code Retry-After} and an RFC 9457 problem body (docs/design.md §6). Several rules matching one
 * request apply all or nothing. A request is counted once, on the first dispatch the filter
 * sees; forwards, includes, error pages and async dispatches of it pass through.
 *
 * <p>In {@code web.xml}, configured by init-params ({@code limits}, {@code rules},
 * {@code headers}, {@code trusted-proxies}, {@code forwarded-header}, {@code trust-all-proxies},
 * {@code missing-key}, {@code store-failure}, {@code key-resolver}, or the short form
 * {@code limit}, {@code key}, {@code cost}); a bad one stops the filter from starting, and so the
 * application from serving. The state lives in memory
 * unless a {@link RateLimitStore} is in the servlet context attribute {@value #STORE_ATTRIBUTE}
 * (put there by a listener) when the filter starts. In code:
 *
 * <pre>{@code
 * RateLimitFilter filter = RateLimitFilter.builder()
 *     .limit("api", "token-bucket rate=100 period=1m")
 *     .limit("login", "token-bucket rate=5 period=15m")
 *     .rule("/api/*", "api", "ip", 1)
 *     .rule("/login", "login", "param:user|lower|trim", 1)
 *     .trustedProxies("10.0.0.0/8")       // they append X-Forwarded-For; see forwardedHeader
 *     .build();
 * FilterRegistration.Dynamic registration = servletContext.addFilter("rateLimit", filter);
 * registration.setAsyncSupported(true);
 * registration.addMappingForUrlPatterns(null, false, "/*");   // null: the REQUEST dispatch only
 * }</pre>
 *
 * @since 1.0
 */
public class RateLimitFilter extends HttpFilter {
  private static final long serialVersionUID = 1L;

  /** A servlet context attribute holding the {@link RateLimitStore} for filters configured by init-params. */
  public static final String STORE_ATTRIBUTE = "dev.ratelimit.servlet.store";

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  /** Marks a request this filter has seen; one name per filter, so that two filters both count. */
  private final String counted = RateLimitFilter.class.getName() + ".counted." + INSTANCES.incrementAndGet();
  private transient volatile FilterSettings settings;

  /** A filter configured from its init-params when the container starts it. */
  public RateLimitFilter() {}

  private RateLimitFilter(FilterSettings settings) {
    this.settings = settings;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void init() throws ServletException {
    if (settings != null) {
      for (String name : Collections.list(getInitParameterNames())) {
        if (InitParams.NAMES.contains(name)) {
          throw new ServletException("rate limit filter '" + getFilterName()
              + "' is configured by its builder; remove its init-param '" + name + "'");
        }
      }
      return;
    }
    try {
      Object store = getServletContext().getAttribute(STORE_ATTRIBUTE);
      settings = InitParams.read(getFilterName(), getFilterConfig(), store);
    } catch (IllegalArgumentException | IllegalStateException e) {
      String message = "rate limit filter '" + getFilterName() + "' not started: " + e.getMessage();
      getServletContext().log(message);
      throw new ServletException(message, e);
    }
  }

  /** Match the rules, decide on their keys, write the answer: pass the request on, or refuse it. */
  @Override
  protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    FilterSettings settings = this.settings;
    if (settings == null) {
      throw new ServletException("rate limit filter used before init");
    }
    if (request.getAttribute(counted) != null) {
      chain.doFilter(request, response); // a later dispatch of a request already counted
      return;
    }
    request.setAttribute(counted, Boolean.TRUE);
    Request view = ServletRequestView.of(request);
    Charges charges = Charges.of(settings.rules().matching(view), view, settings.decided().missingKey());
    if (charges.missingKey() != null) {
      settings.rejection().reject(request, response, Rejection.of(charges.missingKey()));
      return;
    }
    if (charges.isEmpty()) {
      chain.doFilter(request, response);
      return;
    }
    Charges.Verdict verdict = admitted(settings, charges, request, response);
    if (verdict == null) {
      return;
    }
    if (verdict.settlement() == null) {
      chain.doFilter(request, response);
      return;
    }
    passAndSettle(request, response, chain, verdict.settlement());
  }

  /**
   * Passes the request on, then settles the charges of {@code charge-on} and {@code cost-header}
   * rules by the response: when the chain returns, or, for a request that went async, when it
   * completes (or times out, or fails). A cost header is caught as the application sets it
   * ({@link CostStatingResponse}). Entering the chain starts the handler (docs/design.md §2.7):
   * from then on a client that goes away is charged unless the rule refunds cancelled requests.
   * A container tells of a client gone only through a failed write: an {@link IOException} out
   * of the chain once the response was committed, or an async cycle's error with one. A chain
   * that throws anything else, or before its response was committed, counts as 500, the status
   * the container sends.
   */
  private static void passAndSettle(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
      Charges.Settlement settlement) throws IOException, ServletException {
    List<CostHeader> costHeaders = settlement.costHeaders();
    CostStatingResponse stating = costHeaders.isEmpty() ? null : new CostStatingResponse(response, costHeaders);
    Function<String, List<String>> stated = stating == null ? name -> List.of() : stating::stated;
    settlement.start(); // nothing cancels a servlet request before its chain: always true
    try {
      chain.doFilter(request, stating == null ? response : stating);
    } catch (IOException e) {
      if (response.isCommitted()) {
        settlement.cancel(stated); // the response was on its way, with its status: the client went away
      } else {
        settlement.settle(HttpServletResponse.SC_INTERNAL_SERVER_ERROR, stated);
      }
      throw e;
    } catch (ServletException | RuntimeException | Error e) {
      settlement.settle(HttpServletResponse.SC_INTERNAL_SERVER_ERROR, stated);
      throw e;
    }
    if (request.isAsyncStarted()) {
      // a complete() during this dispatch takes effect only once it returns (Servlet 6.0
      // §2.3.3.3), so the listener is in time
      try {
        request.getAsyncContext().addListener(new SettleOnCompletion(settlement, response, stated));
        return;
      } catch (IllegalStateException completed) {
        // completed already: the status is final
      }
    }
    settlement.settle(response.getStatus(), stated);
  }

  /**
   * Settles an async request's charges when it completes, with the status and the cost then
   * set; or, when the connection failed (the client went away), as a request cancelled after its
   * handler started.
   */
  private record SettleOnCompletion(Charges.Settlement settlement, HttpServletResponse response,
      Function<String, List<String>> stated) implements AsyncListener {
    @Override
    public void onComplete(AsyncEvent event) {
      settlement.settle(response.getStatus(), stated);
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      // the container answers a timeout with 500 unless a listener completes it: settled on completion
    }

    @Override
    public void onError(AsyncEvent event) {
      if (event.getThrowable() instanceof IOException) {
        // a write to the client failed (Tomcat reports it here): whatever status the error
        // handling then sets, no one receives it
        settlement.cancel(stated);
      }
      // otherwise completion follows the error; the status is read then
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      event.getAsyncContext().addListener(this); // a new async cycle drops the listeners
    }
  }

  /**
   * Spends the charges and sets the headers; a refused request is answered here (429, or 503 when
   * closed) and {@code null} returned.
   */
  private static Charges.Verdict admitted(FilterSettings settings, Charges charges, HttpServletRequest request,
      HttpServletResponse response) throws IOException, ServletException {
    Charges.Verdict verdict;
    try {
      verdict = charges.spend(settings.limiter(), settings.headers(), ServletResponseView.of(response));
    } catch (StoreUnavailableException e) {
      // failure=closed: neither admitted nor counted
      RateLimitResponses.storeUnavailable(settings.rejection(), request, response, charges.closedLimit());
      return null;
    }
    if (!verdict.allowed()) {
      RateLimitResponses.rateLimited(settings.rejection(), request, response, verdict.limit(),
          verdict.retryAfterMillis());
      return null;
    }
    return verdict;
  }

  /** The limiter's store is closed only when this filter made it. */
  @Override
  public void destroy() {
    FilterSettings settings = this.settings;
    if (settings != null && settings.ownsLimiter()) {
      settings.limiter().close();
    }
  }

  /**
   * Configures a filter in code. Either give a {@link RateLimiter}, or its limits (and clock,
   * store, store failure policy) here; then the rules, which {@link #build()} checks. The
   * methods shared with the WebFlux filter's builder are {@link FilterBuilder}'s.
   */
  public static final class Builder extends FilterBuilder<Builder, RateLimitFilter> {
    private final FilterSetup setup;

    private Builder() {
      this(new FilterSetup());
    }

    private Builder(FilterSetup setup) {
      super(setup.rules());
      this.setup = setup;
    }

    /** Requests matching the servlet url-pattern spend 1 unit of the limit, keyed by client address. */
    public Builder rule(String pattern, String limit) {
      return rule(pattern, limit, "ip", 1);
    }

    /**
     * Requests matching the servlet url-pattern spend {@code cost} units of the limit.
     *
     * @param key {@code ip}, {@code header:NAME}, {@code principal}, {@code param:NAME} or a
     *     {@link KeyResolver} class name; all but {@code ip} may end in options, such as
     *     {@code param:user|lower|trim} (see {@link KeyResolver})
     */
    public Builder rule(String pattern, String limit, String key, double cost) {
      setup.rule(UrlPattern.parse(pattern), limit, key, cost);
      return this;
    }

    public Builder rule(String pattern, String limit, KeyResolver key, double cost) {
      setup.rule(UrlPattern.parse(pattern), limit, key, cost);
      return this;
    }

    /**
     * The rule added last charges each request under the plan this names ({@code null}, or a
     * plan its limit lacks: the default plan, an unknown one logged once); called on the
     * request thread before the servlet (docs/design.md §2.7). Read it from who the caller is
     * (the authenticated user), never from a header or a parameter, which the client writes
     * (docs/design.md §6.1).
     *
     * @throws IllegalStateException before any rule
     */
    public Builder plan(Function<HttpServletRequest, String> plan) {
      Objects.requireNonNull(plan, "plan");
      setup.lastRule(new RuleOptions(null, null, request -> plan.apply((HttpServletRequest) request.unwrap()), null));
      return this;
    }

    /**
     * The rule added last applies only to requests this accepts: any other is neither charged
     * nor shown the rule's headers. Decide it on facts a client cannot forge (the user's roles,
     * the client address of {@link ClientAddress}), never a header (docs/design.md §6.1).
     *
     * @throws IllegalStateException before any rule
     */
    public Builder condition(Predicate<HttpServletRequest> condition) {
      Objects.requireNonNull(condition, "condition");
      setup.lastRule(new RuleOptions(null, null, null, request -> condition.test((HttpServletRequest) request.unwrap())));
      return this;
    }

    /**
     * Requests whose path within the application (servlet path and path info) {@code matches}
     * spend {@code cost} units of the limit: for patterns of another syntax, such as Spring's
     * {@code /api/**}.
     *
     * @param pattern the pattern as written, for messages
     */
    public Builder rule(String pattern, Predicate<String> matches, String limit, KeyResolver key, double cost) {
      setup.rule(UrlPattern.custom(pattern, matches), limit, key, cost);
      return this;
    }

    /** As {@link #rule(String, Predicate, String, KeyResolver, double)}, with a key as in {@code web.xml}. */
    public Builder rule(String pattern, Predicate<String> matches, String limit, String key, double cost) {
      setup.rule(UrlPattern.custom(pattern, matches), limit, key, cost);
      return this;
    }

    /** The client addresses of {@code ip} keys; replaces {@link #trustedProxies} and {@link #forwardedHeader}. */
    public Builder clientAddress(ClientAddress clients) {
      setup.clients(clients);
      return this;
    }

    /** What a rule does with a request without its key. Default: {@link MissingKey#GLOBAL}. */
    public Builder missingKey(MissingKey policy) {
      setup.missingKey(policy);
      return this;
    }

    /** How refused requests are answered. Default: {@link RejectionHandler#problemJson()}. */
    public Builder rejectionHandler(RejectionHandler handler) {
      setup.rejection(handler);
      return this;
    }

    @Override
    public RateLimitFilter build() {
      return new RateLimitFilter(setup.settle());
    }
  }
}
