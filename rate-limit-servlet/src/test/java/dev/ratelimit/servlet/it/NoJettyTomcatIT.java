package dev.ratelimit.servlet.it;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The filter in Tomcat 11 with no Jetty class anywhere (failsafe's {@code without-jetty} run drops
 * Jetty's jars from the class path): Jetty is an optional dependency, and a filter that touched
 * one of its classes outside Jetty would fail to load or to answer. The whole container contract.
 */
class NoJettyTomcatIT extends TomcatFilterIT {

  @Test
  void noJettyClassIsThere() {
    ClassLoader loader = NoJettyTomcatIT.class.getClassLoader();
    for (String name : new String[] {"org.eclipse.jetty.ee10.servlet.ServletApiResponse",
        "org.eclipse.jetty.http.PreEncodedHttpField", "org.eclipse.jetty.http.HttpField",
        "org.eclipse.jetty.server.Response", "org.eclipse.jetty.util.StringUtil"}) {
      assertThatThrownBy(() -> Class.forName(name, false, loader)).as(name)
          .isInstanceOf(ClassNotFoundException.class);
    }
  }
}
