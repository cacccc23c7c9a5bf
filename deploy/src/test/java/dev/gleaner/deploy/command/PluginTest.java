package dev.gleaner.deploy.command;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.Workload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.worker.WorkerConfig;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.Workers;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A user's workload, compiled here into a jar in a plugins folder, found by master and worker. */
class PluginTest {
  @TempDir
  Path dir;

  private static final String SOURCE = """
      package example;

      import dev.gleaner.common.workload.*;
      import java.nio.ByteBuffer;
      import java.util.Map;

      /** Sums the squares of the integers in [from, to). */
      public final class SquaresWorkload implements Workload {
        public String name() { return "squares"; }
        public String summary() { return "sum of squares"; }
        public UnitRange range(Map<String, String> p, InputSource in) {
          return new UnitRange(Long.parseLong(p.get("from")), Long.parseLong(p.get("to")));
        }
        public ChunkComputation open(Map<String, String> p, long start, long end) {
          return new ChunkComputation() {
            long sum;
            public void compute(long from, long to, ByteBuffer input, Cancellation c) {
              for (long x = from; x < to; x++) { sum += x * x; }
            }
            public byte[] take() { byte[] r = LongResult.encode(sum); sum = 0; return r; }
          };
        }
        public byte[] empty() { return LongResult.encode(0); }
        public byte[] merge(byte[] a, byte[] b) { return LongResult.add(a, b); }
        public String render(byte[] r) { return "sum of squares " + LongResult.decode(r); }
      }
      """;

  private Path buildPluginJar() throws Exception {
    Path src = dir.resolve("src/example/SquaresWorkload.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, SOURCE);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", System.getProperty("java.class.path"), src.toString());
    assertEquals(0, rc, "the plugin source compiles");
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    Path jar = plugins.resolve("squares.jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      try (var files = Files.walk(classes)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
          out.write(Files.readAllBytes(f));
        }
      }
      out.putNextEntry(new JarEntry("META-INF/services/" + Workload.class.getName()));
      out.write("example.SquaresWorkload\n".getBytes(StandardCharsets.UTF_8));
    }
    return plugins;
  }

  @Test
  void aPluginJarInThePluginsFolderRunsAsAWorkload() throws Exception {
    Path plugins = buildPluginJar();
    ClassLoader loader = Plugins.loader(plugins);
    Workloads masterSide = Workloads.withPlugins(loader);
    assertTrue(masterSide.has("squares"), "found: " + masterSide.names());
    byte[] secret = "plugin-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    try (MasterServer master = new MasterServer(MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0),
        dir.resolve("data"), secret, masterSide)).start();
         WorkerDaemon worker = WorkerDaemon.start(WorkerConfig.defaults("127.0.0.1", master.port(), secret, "w",
             Workers.workloads(Plugins.loader(plugins), Set.of())).withCores(2))) {
      String id;
      try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()), secret)) {
        id = c.submit(JobSpec.newBuilder().setWorkload("squares").putParams("from", "0").putParams("to", "100000")
            .setCheckpoints(2).build());
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> !master.status(id).getJobs(0).getState().matches("QUEUED|RUNNING"));
      JobStatus s = master.status(id).getJobs(0);
      assertEquals("DONE", s.getState(), s.getMessage());
      long n = 100_000;
      assertEquals("sum of squares " + (n - 1) * n * (2 * n - 1) / 6, s.getResult());
    }
  }

  @Test
  void aMissingPluginsFolderIsAClearError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Plugins.loader(dir.resolve("nope")));
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
  }

}
