package dev.ratelimit.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Switches on {@link RateLimited} in a plain Spring application (Spring Boot does it by itself).
 * The application defines a {@link dev.ratelimit.limiter.RateLimiter} bean; every annotation is checked
 * against it at startup.
 *
 * @since 1.0
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Import(RateLimitingConfiguration.class)
public @interface EnableRateLimiting {}
