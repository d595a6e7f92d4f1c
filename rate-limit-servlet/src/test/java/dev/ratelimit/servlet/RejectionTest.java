package dev.ratelimit.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ratelimit.http.Problem;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class RejectionTest {

  @Test
  void toJson_rateLimitedIsTheQuotaExceededProblem() {
    assertThat(Rejection.rateLimited("api", 3).toJson("/api/users")).isEqualTo("{"
        + "\"type\":\"https://iana.org/assignments/http-problem-types#quota-exceeded\","
        + "\"title\":\"Too Many Requests\",\"status\":429,"
        + "\"detail\":\"Rate limit 'api' exceeded; retry in 3 s\","
        + "\"instance\":\"/api/users\",\"limit\":\"api\",\"retryAfter\":3}");
  }

  @Test
  void toJson_storeUnavailableHasTheSameShape() {
    assertThat(Rejection.storeUnavailable("api", 1).toJson("/api")).isEqualTo("{"
        + "\"type\":\"about:blank\",\"title\":\"Service Unavailable\",\"status\":503,"
        + "\"detail\":\"Rate limit 'api' can't be checked: its store is unavailable; retry in 1 s\","
        + "\"instance\":\"/api\",\"limit\":\"api\",\"retryAfter\":1}");
  }

  @Test
  void toJson_missingKeyNamesTheKey() {
    assertThat(Rejection.missingKey("api", "header:X-Api-Key").toJson("/api")).isEqualTo("{"
        + "\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
        + "\"detail\":\"Rate limit 'api' needs a key from header:X-Api-Key, and the request has none\","
        + "\"instance\":\"/api\",\"limit\":\"api\",\"key\":\"header:X-Api-Key\"}");
  }

  /** Every refusal a front end can make has its Rejection, with the same status and body. */
  @Test
  void everyProblemReason_hasItsRejection() {
    for (Problem.Reason reason : Problem.Reason.values()) {
      Problem problem = new Problem(reason, "api", 1, reason == Problem.Reason.MISSING_KEY ? "ip" : null);
      Rejection rejection = Rejection.of(problem);
      assertThat(rejection.reason().name()).isEqualTo(reason.name());
      assertThat(rejection.status()).isEqualTo(problem.status());
      assertThat(rejection.toJson("/x")).isEqualTo(problem.toJson("/x"));
    }
  }

  @Test
  void toJson_escapesTheInstance() {
    assertThat(Rejection.rateLimited("api", 1).toJson("/a\"b\\c\nd\u0001"))
        .contains("\"instance\":\"/a\\\"b\\\\c\\nd\\u0001\"");
  }

  @Test
  void problemJson_writesStatusTypeAndBody() throws IOException, jakarta.servlet.ServletException {
    FakeHttp.Request request = new FakeHttp.Request().path("/api/x");
    FakeHttp.Response response = new FakeHttp.Response();
    RejectionHandler.problemJson().reject(request.build(), response.build(), Rejection.rateLimited("api", 2));
    assertThat(response.status).isEqualTo(429);
    assertThat(response.contentType).isEqualTo("application/problem+json");
    assertThat(response.body()).isEqualTo(Rejection.rateLimited("api", 2).toJson("/api/x"));
  }
}
