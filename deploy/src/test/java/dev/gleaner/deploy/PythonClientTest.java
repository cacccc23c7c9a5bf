package dev.gleaner.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SecretFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python client as its docs show it, against a real master JVM with two worker JVMs: from a
 * fresh virtual environment, {@code pip install clients/python}; then the client's own tests
 * ({@code clients/python/tests}: pytest when it can be installed in the environment, else the
 * standard library's unittest, which runs the same tests) and the docs' example, a Python function
 * over a range run as an exec job. Skips, naming it, where python3 is missing.
 */
class PythonClientTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path CLIENT = ROOT.resolve("clients/python");

  @TempDir
  Path dir;

  private record Run(int code, String out) {}

  private static Run run(Path cwd, Map<String, String> env, Duration limit, String... command)
      throws IOException, InterruptedException {
    ProcessBuilder b = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
    b.environment().putAll(env);
    Path out = Files.createTempFile(cwd, "run", ".log");
    b.redirectOutput(out.toFile());
    Process p = b.start();
    try {
      if (!p.waitFor(limit.toSeconds(), TimeUnit.SECONDS)) {
        return new Run(-1, "did not end within " + limit.toSeconds() + " s: " + String.join(" ", command) + "\n"
            + Files.readString(out));
      }
      return new Run(p.exitValue(), Files.readString(out));
    } finally {
      // pip's build, a test's own children: every process this started, by its pid
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
  }

  private static boolean onPath(String program) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
        return true;
      }
    }
    return false;
  }

  private static String credential(byte[] key, String name) {
    return name + ":" + Base64.getEncoder().encodeToString(Auth.token(key, Role.CLIENT, name));
  }

  @Test
  void pipInstallsTheClientWhoseTestsAndExamplePassAgainstARealMaster() throws Exception {
    Assumptions.assumeTrue(onPath("python3"), "python3 is not on the PATH: the Python client needs it");
    Path secret = dir.resolve("secret");
    Files.writeString(secret, "python-client-test-" + System.nanoTime() + "-0123456789\n");
    Path key = dir.resolve("cluster.key");
    Files.writeString(key, "python-client-key-" + System.nanoTime() + "-0123456789\n");
    byte[] clusterKey = SecretFile.read(key);
    Path venv = dir.resolve("venv");
    Map<String, String> none = Map.of();
    Run made = run(dir, none, Duration.ofMinutes(2), "python3", "-m", "venv", venv.toString());
    assertEquals(0, made.code(), made.out());
    String python = venv.resolve("bin/python").toString();
    Run installed = run(dir, none, Duration.ofMinutes(4), python, "-m", "pip", "install", CLIENT.toString());
    assertEquals(0, installed.code(), "pip install clients/python: " + installed.out());
    // pytest if the environment can have it (offline, from the machine's own wheels), else unittest
    boolean pytest = run(dir, none, Duration.ofMinutes(4), python, "-m", "pip", "install", "pytest").code() == 0;

    try (MasterProcess m = MasterProcess.start(dir, List.of("-Xmx256m", "-XX:+UseSerialGC"), List.of("--data",
        dir.resolve("data").toString(), "--secret-file", secret.toString(), "--cluster-key", key.toString(),
        "--allow-shared-secret"), Duration.ofSeconds(60)); WorkerProcesses workers = new WorkerProcesses(dir)) {
      for (int i = 1; i <= 2; i++) {
        workers.start("w" + i, m.port(), secret, 1, 1, "256m", List.of("--allow-exec", "python3"));
      }
      String url = "http://127.0.0.1:" + m.port();
      List<String> tests = new ArrayList<>(List.of(python, "-m"));
      tests.addAll(pytest ? List.of("pytest", "-v", "-p", "no:cacheprovider", CLIENT.resolve("tests").toString())
          : List.of("unittest", "discover", "-v", "-s", CLIENT.resolve("tests").toString()));
      Run t = run(dir, Map.of("GLEANER_URL", url, "GLEANER_TEST_TOKEN", credential(clusterKey, "alice"),
          "GLEANER_TEST_OTHER_TOKEN", credential(clusterKey, "bob")), Duration.ofMinutes(5),
          tests.toArray(String[]::new));
      assertEquals(0, t.code(), (pytest ? "pytest" : "unittest") + " of clients/python/tests:\n" + t.out()
          + "\nworkers:\n" + workers.logs());
      assertTrue(pytest ? t.out().contains("6 passed") && !t.out().contains("skipped")
          : t.out().contains("Ran 6 tests") && t.out().contains("OK") && !t.out().contains("skipped"),
          "every test ran, none skipped:\n" + t.out());

      // the docs' example: a token file, as `gleaner token client alice` writes it
      Path token = dir.resolve("client-alice.token");
      Files.writeString(token, "# a client token\nrole=client\nid=alice\ntoken="
          + Base64.getEncoder().encodeToString(Auth.token(clusterKey, Role.CLIENT, "alice")) + "\n",
          StandardCharsets.UTF_8);
      Run example = run(dir, Map.of("GLEANER_URL", url, "GLEANER_TOKEN_FILE", token.toString()),
          Duration.ofMinutes(5), python, CLIENT.resolve("examples/submit_walk.py").toString(), "2000");
      assertEquals(0, example.code(), example.out() + "\nworkers:\n" + workers.logs());
      assertTrue(example.out().contains("2000 walks, mean distance"), example.out());
    }
  }
}
