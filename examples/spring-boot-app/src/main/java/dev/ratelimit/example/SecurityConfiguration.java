package dev.ratelimit.example;

import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * HTTP basic with a few in-memory users: the per-user limits follow the authenticated user
 * ({@code #principal}, the filter's {@code principal} key), never a header the client chooses.
 * {@code /api/hello}, {@code /login} and the health are open; the rate limits endpoint, whose
 * writes application.yml grants (a reset, a change of limit), and the other actuator endpoints
 * are for operators: anonymous callers get 401, other users 403.
 */
@Configuration(proxyBeanMethods = false)
public class SecurityConfiguration {

  @Bean
  SecurityFilterChain security(HttpSecurity http) throws Exception {
    return http
        .authorizeHttpRequests(requests -> requests
            .requestMatchers("/api/hello", "/login", "/error").permitAll()
            .requestMatchers(EndpointRequest.to("health")).permitAll()
            .requestMatchers(EndpointRequest.to("ratelimits")).hasRole("OPERATOR")
            .requestMatchers(EndpointRequest.toAnyEndpoint()).hasRole("OPERATOR")
            .anyRequest().authenticated())
        .httpBasic(Customizer.withDefaults())
        // an API for curl and scripts, without browser sessions: no CSRF tokens to send
        .csrf(csrf -> csrf.disable())
        .build();
  }

  /** The demo's users; {noop}: plain-text passwords, for a demo only. */
  @Bean
  InMemoryUserDetailsManager users() {
    return new InMemoryUserDetailsManager(
        User.withUsername("ann").password("{noop}secret").roles("USER").build(),
        User.withUsername("bob").password("{noop}hunter2").roles("USER").build(),
        User.withUsername("cy").password("{noop}tokens").roles("USER").build(),
        User.withUsername("batch").password("{noop}nightly").roles("INTERNAL").build(),
        User.withUsername("admin").password("{noop}admin").roles("USER", "OPERATOR").build());
  }
}
