package dev.ratelimit.example;

import dev.ratelimit.spring.RateLimited;
import java.time.Instant;
import org.springframework.stereotype.Service;

/** An expensive export: callers wait up to 3 s for their turn instead of being turned away. */
@Service
public class ReportService {

  @RateLimited(name = "exports", maxWait = "3s")
  public String export() {
    return "report exported at " + Instant.now();
  }
}
