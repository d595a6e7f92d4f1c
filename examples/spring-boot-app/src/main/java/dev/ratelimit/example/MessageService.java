package dev.ratelimit.example;

import dev.ratelimit.spring.RateLimited;
import org.springframework.stereotype.Service;

/** Sending a message costs one unit of the sender's "send-message" limit: the authenticated user's. */
@Service
public class MessageService {

  @RateLimited(name = "send-message", key = "#principal")
  public String send(String user, String text) {
    return user + " sent: " + text;
  }
}
