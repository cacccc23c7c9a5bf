package dev.gleaner.master.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * HTTP GETs to a master over raw sockets, so that a path reaches it exactly as written (no client
 * normalises {@code ..} away), and the checks of its answers that several tests share.
 */
public final class HttpGet {
  private HttpGet() {}

  /** An answer: its status code, headers (lower-case names) and body. */
  public record Reply(int status, String headers, String body) {
    public String header(String name) {
      for (String l : headers.split("\r\n")) {
        int colon = l.indexOf(':');
        if (colon > 0 && l.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return l.substring(colon + 1).trim();
        }
      }
      return "";
    }
  }

  public static Reply get(InetAddress host, int port, String path, String... headers) throws IOException {
    return getAs(host, port, "localhost:" + port, path, headers);
  }

  /** A GET whose Host header is {@code hostHeader} (none if null). */
  public static Reply getAs(InetAddress host, int port, String hostHeader, String path, String... headers) throws IOException {
    try (Socket s = new Socket(host, port)) {
      return exchange(s, hostHeader, path, headers);
    }
  }

  /** A GET on a connected socket (plain or TLS) whose Host header is {@code hostHeader} (none if null). */
  public static Reply exchange(Socket s, String hostHeader, String path, String... headers) throws IOException {
    s.setSoTimeout(10_000);
    StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\n");
    if (hostHeader != null) {
      request.append("Host: ").append(hostHeader).append("\r\n");
    }
    for (String h : headers) {
      request.append(h).append("\r\n");
    }
    s.getOutputStream().write(request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
    s.getOutputStream().flush();
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    InputStream in = s.getInputStream();
    in.transferTo(all); // the master closes after each answer
    String text = all.toString(StandardCharsets.UTF_8);
    int split = text.indexOf("\r\n\r\n");
    assertTrue(split > 0, "no HTTP answer: " + text);
    String head = text.substring(0, split);
    return new Reply(Integer.parseInt(head.split(" ")[1]), head, text.substring(split + 4));
  }

  /** Host headers a web site rebound to 127.0.0.1 could make a browser on this machine send. */
  public static List<String> foreignNames(int port) {
    return List.of("evil.example", "evil.example:" + port, "localhost.evil.example", "127.0.0.1.nip.io:" + port,
        "127.0.0.1.evil.example", "attacker.example:" + port, "[::1].evil.example", "0x7f000001.example");
  }

  /** {@code /metrics} from this machine: loopback names only, as for the page; one Host header only. */
  public static void assertMetricsAnswerLoopbackNamesOnly(java.util.function.Function<String[], Reply> get, int port) {
    for (String local : new String[] {"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, "LOCALHOST", null}) {
      Reply r = get.apply(new String[] {local});
      assertEquals(200, r.status(), local + ": " + r.body());
    }
    for (String foreign : foreignNames(port)) {
      Reply r = get.apply(new String[] {foreign});
      assertEquals(403, r.status(), foreign);
      assertEquals("/metrics asked for as '" + foreign + "' from this machine: scrape it as localhost:" + port
          + " or 127.0.0.1:" + port + " (--metrics-from-anywhere opens it to any name)", r.body().strip());
    }
    for (String second : new String[] {"evil.example", "localhost:" + port}) {
      Reply r = get.apply(new String[] {"localhost:" + port, "Host: " + second});
      assertEquals(400, r.status(), "two Host headers: " + r.body());
      assertEquals("more than one Host header", r.body().strip());
    }
  }

  public static Reply get(int port, String path, String... headers) throws IOException {
    return get(InetAddress.getLoopbackAddress(), port, path, headers);
  }
}
