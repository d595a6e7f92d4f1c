package dev.ratelimit.cli;

/** A command line that can't be run: the message names the bad value and fits on one line. */
final class UsageException extends RuntimeException {
  UsageException(String message) {
    super(message, null, false, false);
  }
}
