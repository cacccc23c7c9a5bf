package dev.gleaner.deploy.command;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The class loader of a plugins folder: every {@code *.jar} in it. */
public final class Plugins {
  private Plugins() {}

  public static ClassLoader loader(Path dir) {
    ClassLoader parent = Plugins.class.getClassLoader();
    if (dir == null) {
      return parent;
    }
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("plugins directory " + dir + " does not exist");
    }
    List<URL> jars = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.toString().endsWith(".jar")).sorted().toList()) {
        jars.add(p.toUri().toURL());
      }
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("bad plugin path in " + dir + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot list plugins directory " + dir + ": " + e.getMessage(), e);
    }
    return new URLClassLoader("gleaner-plugins", jars.toArray(URL[]::new), parent);
  }
}
