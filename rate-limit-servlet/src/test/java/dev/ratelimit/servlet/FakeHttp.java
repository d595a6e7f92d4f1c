package dev.ratelimit.servlet;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Requests and responses for unit tests, without a container: only what the filter reads and writes. */
final class FakeHttp {
  private FakeHttp() {}

  static final class Request {
    String servletPath = "/";
    String pathInfo;
    String remoteAddr = "192.0.2.1";
    String contextPath = "";
    Principal principal;
    final Map<String, List<String>> headers = new LinkedHashMap<>();
    final Map<String, String> params = new HashMap<>();
    final Map<String, Object> attributes = new HashMap<>();

    Request path(String servletPath) {
      this.servletPath = servletPath;
      return this;
    }

    Request from(String remoteAddr) {
      this.remoteAddr = remoteAddr;
      return this;
    }

    Request header(String name, String value) {
      headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), n -> new ArrayList<>()).add(value);
      return this;
    }

    Request param(String name, String value) {
      params.put(name, value);
      return this;
    }

    Request user(String name) {
      this.principal = () -> name;
      return this;
    }

    HttpServletRequest build() {
      return (HttpServletRequest) Proxy.newProxyInstance(FakeHttp.class.getClassLoader(),
          new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> switch (method.getName()) {
            case "getServletPath" -> servletPath;
            case "getPathInfo" -> pathInfo;
            case "getRequestURI" -> contextPath + servletPath + (pathInfo == null ? "" : pathInfo);
            case "getContextPath" -> contextPath;
            case "getRemoteAddr" -> remoteAddr;
            case "getUserPrincipal" -> principal;
            case "getHeader" -> {
              List<String> values = headers.get(((String) args[0]).toLowerCase(Locale.ROOT));
              yield values == null ? null : values.get(0);
            }
            case "getHeaders" -> Collections.enumeration(
                headers.getOrDefault(((String) args[0]).toLowerCase(Locale.ROOT), List.of()));
            case "getParameter" -> params.get((String) args[0]);
            case "getAttribute" -> attributes.get((String) args[0]);
            case "setAttribute" -> {
              attributes.put((String) args[0], args[1]);
              yield null;
            }
            case "toString" -> "FakeRequest[" + servletPath + "]";
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> throw new UnsupportedOperationException(method.getName());
          });
    }
  }

  static final class Response {
    int status = 200;
    String contentType;
    final Map<String, String> headers = new LinkedHashMap<>();
    final ByteArrayOutputStream body = new ByteArrayOutputStream();

    String header(String name) {
      return headers.get(name);
    }

    String body() {
      return body.toString(StandardCharsets.UTF_8);
    }

    HttpServletResponse build() {
      ServletOutputStream out = new ServletOutputStream() {
        @Override
        public void write(int b) {
          body.write(b);
        }

        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {}
      };
      return (HttpServletResponse) Proxy.newProxyInstance(FakeHttp.class.getClassLoader(),
          new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> switch (method.getName()) {
            case "setHeader" -> {
              headers.put((String) args[0], (String) args[1]);
              yield null;
            }
            case "addHeader" -> {
              if (headers.putIfAbsent((String) args[0], (String) args[1]) != null) {
                throw new AssertionError("header " + args[0] + " added twice");
              }
              yield null;
            }
            case "containsHeader" -> headers.containsKey((String) args[0]);
            case "setStatus" -> {
              status = (Integer) args[0];
              yield null;
            }
            case "setContentType" -> {
              contentType = (String) args[0];
              yield null;
            }
            case "setContentLength" -> null;
            case "getOutputStream" -> out;
            case "toString" -> "FakeResponse";
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            default -> throw new UnsupportedOperationException(method.getName());
          });
    }
  }

  /** A chain that counts how often the request got through. */
  static final class Chain implements FilterChain {
    int calls;

    @Override
    public void doFilter(jakarta.servlet.ServletRequest request, jakarta.servlet.ServletResponse response) {
      calls++;
    }
  }
}
