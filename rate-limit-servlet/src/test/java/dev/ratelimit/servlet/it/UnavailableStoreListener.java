package dev.ratelimit.servlet.it;

import dev.ratelimit.servlet.RateLimitFilter;
import dev.ratelimit.servlet.UnavailableStore;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/** Gives the web.xml-configured filter a remote store that is down, as a listener would give it Redis. */
public class UnavailableStoreListener implements ServletContextListener {
  @Override
  public void contextInitialized(ServletContextEvent event) {
    event.getServletContext().setAttribute(RateLimitFilter.STORE_ATTRIBUTE, new UnavailableStore());
  }
}
