package dev.ratelimit.http;

import java.util.LinkedHashMap;
import java.util.Map;

/** A response for unit tests: the headers in the order set (adding one twice is a bug), and a refusal. */
class FakeResponse implements Response {
  final Map<String, String> headers = new LinkedHashMap<>();
  int status = 200;
  String contentType;
  byte[] body;

  @Override
  public boolean containsHeader(String name) {
    return headers.containsKey(name);
  }

  @Override
  public void addHeader(String name, String value) {
    if (headers.putIfAbsent(name, value) != null) {
      throw new AssertionError("header " + name + " added twice");
    }
  }

  @Override
  public void setHeader(String name, String value) {
    headers.put(name, value);
  }

  @Override
  public void refuse(int status, String contentType, byte[] body) {
    this.status = status;
    this.contentType = contentType;
    this.body = body;
  }
}
