package dev.ratelimit.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process (Debian's package; {@code ./run-tests} installs it) on a
 * free loopback port, with nothing persisted, for tests. Started by {@link #start}, stopped by
 * {@link #close}: no mocks, no containers.
 */
public final class RedisServer implements AutoCloseable {
  private final int port;
  private final Path directory;
  private final List<String> extraArgs;
  private Process process;

  private RedisServer(int port, List<String> extraArgs) throws IOException {
    this.port = port;
    this.extraArgs = extraArgs;
    this.directory = Files.createTempDirectory("redis-" + port + "-");
  }

  /** Starts a standalone server on a free port and waits until it answers PING. */
  public static RedisServer start(String... extraArgs) {
    try {
      RedisServer server = new RedisServer(freePort(), List.of(extraArgs));
      server.launch();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return port;
  }

  /** {@code redis://127.0.0.1:PORT} */
  public String uri() {
    return "redis://127.0.0.1:" + port;
  }

  public Path directory() {
    return directory;
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Starts the process again on the same port (after {@link #kill}), with an empty data set. */
  public void restart() {
    try {
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills the process at once, as a crash would. */
  public void kill() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Sends one command and returns the reply's first line (RESP), e.g. {@code +PONG}. */
  public String command(String... words) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(5000);
      StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
      for (String word : words) {
        request.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word).append("\r\n");
      }
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)).readLine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void launch() throws IOException {
    List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.toString(),
        "--daemonize", "no", "--loglevel", "warning"));
    command.addAll(extraArgs);
    process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(directory.resolve("redis.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server exited: " + Files.readString(directory.resolve("redis.log")));
      }
      try {
        if ("+PONG".equals(command("PING"))) {
          return;
        }
      } catch (UncheckedIOException notYet) {
        // still starting
      }
      Thread.onSpinWait();
    }
    throw new IllegalStateException("redis-server on port " + port + " did not answer within 10 s");
  }

  @Override
  public void close() {
    kill();
  }

  /** A port nothing listens on now (the test servers start right away, so a clash is unlikely). */
  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }
}
