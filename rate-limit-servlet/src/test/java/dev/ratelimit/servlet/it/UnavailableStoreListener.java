package dev.ratelimit.servlet.it;

import dev.ratelimit.contract.SwitchableStore;
import dev.ratelimit.servlet.RateLimitFilter;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

/** Gives the web.xml-configured filter a remote store that is down, as a listener would give it Redis. */
public class UnavailableStoreListener implements ServletContextListener {
  @Override
  public void contextInitialized(ServletContextEvent event) {
    event.getServletContext().setAttribute(RateLimitFilter.STORE_ATTRIBUTE, SwitchableStore.unavailable());
  }
}
