package dev.ratelimit.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.RedisCodec;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
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
import java.util.Locale;
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
  private RedisClient client;

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

  /**
   * A Lettuce connection to this server, on a client the server owns and shuts down (with its
   * connections) in {@link #close}.
   */
  public synchronized <K, V> StatefulRedisConnection<K, V> connect(RedisCodec<K, V> codec) {
    if (client == null) {
      client = RedisClient.create(uri());
    }
    return client.connect(codec);
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
      send(socket, words);
      return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)).readLine();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes one command as a RESP array of bulk strings. */
  private static void send(Socket socket, String... words) throws IOException {
    socket.setSoTimeout(5000);
    StringBuilder request = new StringBuilder("*" + words.length + "\r\n");
    for (String word : words) {
      request.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word).append("\r\n");
    }
    OutputStream out = socket.getOutputStream();
    out.write(request.toString().getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /**
   * Sends one command and returns the whole reply (RESP2): a {@code String} for simple and bulk
   * strings, a {@code Long} for integers, a {@code List} for arrays, {@code null} for nil.
   *
   * @throws IllegalStateException for an error reply, with its text
   */
  public Object call(String... words) {
    return call(port, words);
  }

  /** {@link #call(String...)} to whatever Redis process listens on {@code port}, a sentinel too. */
  static Object call(int port, String... words) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      send(socket, words);
      return read(new DataInputStream(new BufferedInputStream(socket.getInputStream())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Object read(DataInputStream in) throws IOException {
    String line = readLine(in);
    char type = line.charAt(0);
    String rest = line.substring(1);
    switch (type) {
      case '+':
        return rest;
      case '-':
        throw new IllegalStateException(rest);
      case ':':
        return Long.parseLong(rest);
      case '$': {
        int length = Integer.parseInt(rest);
        if (length < 0) {
          return null;
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        readLine(in);
        return new String(bytes, StandardCharsets.UTF_8);
      }
      case '*': {
        int size = Integer.parseInt(rest);
        if (size < 0) {
          return null;
        }
        List<Object> items = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
          items.add(read(in));
        }
        return items;
      }
      default:
        throw new IllegalStateException("unexpected reply: " + line);
    }
  }

  private static String readLine(DataInputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed mid-reply");
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  /** How many times Redis ran this command ({@code INFO commandstats}), scripts' own calls included. */
  public long calls(String command) {
    String stats = (String) call("INFO", "commandstats");
    String prefix = "cmdstat_" + command.toLowerCase(Locale.ROOT) + ":calls=";
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith(prefix)) {
        return Long.parseLong(line.substring(prefix.length(), line.indexOf(',')));
      }
    }
    return 0;
  }

  /** Calls of a command that failed with an error reply ({@code INFO commandstats} failed_calls). */
  public long failedCalls(String command) {
    String stats = (String) call("INFO", "commandstats");
    String prefix = "cmdstat_" + command.toLowerCase(Locale.ROOT) + ":";
    for (String line : stats.split("\r?\n")) {
      int at = line.indexOf("failed_calls=");
      if (line.startsWith(prefix) && at >= 0) {
        int end = line.indexOf(',', at);
        return Long.parseLong(line.substring(at + "failed_calls=".length(), end < 0 ? line.length() : end).strip());
      }
    }
    return 0;
  }

  /** Stops the process without killing it (SIGSTOP): connections stay open and nothing answers. */
  public void pause() {
    signal("STOP");
  }

  /** Lets a {@link #pause paused} process go on (SIGCONT). */
  public void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
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
    synchronized (this) {
      if (client != null) {
        client.shutdown();
        client = null;
      }
    }
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
