package dev.gleaner.master.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The files of the web page, served from the master's jar: a fixed table from request path to
 * resource, so that no request path is ever turned into a file or resource name (no traversal,
 * whatever the encoding), and no CDN: the browser loads everything from the master.
 */
public final class WebAssets {
  /** The uPlot WebJar's version: its files live under a folder named after it. */
  static final String UPLOT_VERSION = "1.6.30";
  private static final String UPLOT = "META-INF/resources/webjars/uplot/" + UPLOT_VERSION + "/dist/";
  private static final String PAGE = "dev/gleaner/master/web/";

  /** A file to send: its bytes and content type. */
  public record Asset(byte[] bytes, String contentType) {}

  private static final Map<String, String[]> TABLE = Map.of(
      "/", new String[] {PAGE + "index.html", "text/html; charset=utf-8"},
      "/app.js", new String[] {PAGE + "app.js", "text/javascript; charset=utf-8"},
      "/app.css", new String[] {PAGE + "app.css", "text/css; charset=utf-8"},
      "/webjars/uplot/uPlot.iife.min.js", new String[] {UPLOT + "uPlot.iife.min.js", "text/javascript; charset=utf-8"},
      "/webjars/uplot/uPlot.min.css", new String[] {UPLOT + "uPlot.min.css", "text/css; charset=utf-8"},
      "/api/openapi.json", new String[] {PAGE + "openapi.json", "application/json"});

  private WebAssets() {}

  /** Whether {@code path} (a decoded request path) names a file of the page. */
  public static boolean has(String path) {
    return TABLE.containsKey(path);
  }

  /** The paths served, for tests. */
  static java.util.Set<String> paths() {
    return TABLE.keySet();
  }

  /**
   * The file at {@code path}, or null if the page has none there.
   *
   * @throws UncheckedIOException if the jar lacks a file it should hold (a broken build)
   */
  public static Asset get(String path) {
    String[] entry = TABLE.get(path);
    if (entry == null) {
      return null;
    }
    try (InputStream in = WebAssets.class.getClassLoader().getResourceAsStream(entry[0])) {
      if (in == null) {
        throw new UncheckedIOException(new IOException("the master's jar lacks " + entry[0] + " (served as " + path
            + "); the build is broken"));
      }
      return new Asset(in.readAllBytes(), entry[1]);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + entry[0] + " from the master's jar: " + e.getMessage(), e);
    }
  }
}
