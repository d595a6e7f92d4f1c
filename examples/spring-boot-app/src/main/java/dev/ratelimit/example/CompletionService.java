package dev.ratelimit.example;

import dev.ratelimit.spring.RateLimited;
import org.springframework.stereotype.Service;

/**
 * An "LLM completion": a call costs the tokens it is estimated to use (about four characters a
 * token, prompt and answer), charged to the user's "llm-tokens" budget before it runs.
 */
@Service
public class CompletionService {

  @RateLimited(name = "llm-tokens", key = "#user", count = "#prompt.length() / 4 + #maxTokens")
  public String complete(String user, String prompt, int maxTokens) {
    return "completion of " + prompt.length() + " characters, at most " + maxTokens + " tokens";
  }
}
