package dev.gleaner.deploy.launch;

import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;

/**
 * The {@code gleaner} command's entry point, {@code dev.gleaner.deploy.Gleaner}, for the code that starts gleaner
 * again: a master or worker in a JVM of its own ({@code java -cp CP NAME worker ...}), or a command line in this JVM.
 * The entry point stands above every command, and so above all that they run; what starts it from below names it
 * here, and looks it up when it runs, as a JVM started by that name does, instead of importing it.
 */
public final class EntryPoint {
  /** The class of the {@code gleaner} command (the jar's Main-Class). */
  public static final String NAME = "dev.gleaner.deploy.Gleaner";

  private EntryPoint() {}

  /**
   * The command line of {@code gleaner ARGS} in a JVM of its own, with this JVM's java and class
   * path, a heap of {@code maxHeap} and the serial collector (a small daemon beside others).
   */
  public static java.util.List<String> inNewJvm(String maxHeap, String... args) {
    java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of(
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + maxHeap,
        "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), NAME));
    cmd.addAll(java.util.List.of(args));
    return cmd;
  }

  /** Runs a command line in this JVM, as {@code Gleaner.run(out, err, args)}; returns its exit code. */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    try {
      return (Integer) Class.forName(NAME).getMethod("run", PrintWriter.class, PrintWriter.class, String[].class)
          .invoke(null, out, err, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error x) {
        throw x;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot run " + NAME + ": " + e, e);
    }
  }
}
