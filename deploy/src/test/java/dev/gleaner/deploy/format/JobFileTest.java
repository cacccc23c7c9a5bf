package dev.gleaner.deploy.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.protocol.JobSpec;
import org.junit.jupiter.api.Test;

class JobFileTest {
  @Test
  void readsYaml() {
    JobSpec s = JobFile.parse("""
        name: count
        workload: primes
        params:
          from: 0
          to: 1e10
        strategy: equal
        checkpoints: 4
        min-workers: 2
        """, "job.yaml");
    assertEquals("primes", s.getWorkload());
    assertEquals("0", s.getParamsMap().get("from"));
    assertEquals("10000000000", s.getParamsMap().get("to"));
    assertEquals("equal", s.getStrategy());
    assertEquals(4, s.getCheckpoints());
    assertEquals(2, s.getMinWorkers());
  }

  @Test
  void readsJson() {
    JobSpec s = JobFile.parse("{\"workload\": \"grep\", \"params\": {\"file\": \"a.txt\", \"pattern\": \"x\", \"regex\": true}}", "job.json");
    assertEquals("true", s.getParamsMap().get("regex"));
  }

  @Test
  void aMistypedKeyIsNamedWithTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JobFile.parse("workload: primes\nparam:\n  to: 10\n", "job.yaml"));
    assertTrue(e.getMessage().contains("unknown key 'param'") && e.getMessage().contains("params"), e.getMessage());
  }

  @Test
  void verifyIsAShareOfTheUnits() {
    assertEquals(0.1, JobFile.parse("workload: primes\nverify: 0.1\n", "job.yaml").getVerify());
    for (String bad : new String[] {"1.5", "-0.1", "yes"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> JobFile.parse("workload: primes\nverify: " + bad + "\n", "job.yaml"));
      assertTrue(e.getMessage().startsWith("job.yaml: 'verify' must be a share within 0..1"), e.getMessage());
    }
  }

  @Test
  void priorityIsAWholeNumber() {
    assertEquals(0, JobFile.parse("workload: primes\n", "job.yaml").getPriority());
    assertEquals(5, JobFile.parse("workload: primes\npriority: 5\n", "job.yaml").getPriority());
    assertEquals(-2, JobFile.parse("workload: primes\npriority: -2\n", "job.yaml").getPriority());
    for (String bad : new String[] {"1.5", "high", "10000000000"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> JobFile.parse("workload: primes\npriority: " + bad + "\n", "job.yaml"));
      assertTrue(e.getMessage().startsWith("job.yaml: 'priority' must be a whole number"), e.getMessage());
    }
  }

  @Test
  void brokenYamlSaysWhere() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JobFile.parse("workload: primes\nparams: [to: 1\n", "job.yaml"));
    assertTrue(e.getMessage().startsWith("job.yaml: not valid YAML or JSON"), e.getMessage());
    IllegalArgumentException flow = assertThrows(IllegalArgumentException.class,
        () -> JobFile.parse("workload: primes\nparams: {to: 100\nname: x\n", "job.yaml"));
    assertEquals("job.yaml: not valid YAML or JSON: while parsing a flow mapping; expected ',' or '}', but got :"
        + " (line 3, column 5)", flow.getMessage(), "one line, saying where");
  }

  @Test
  void missingWorkloadAndBadNumbersAreRefused() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> JobFile.parse("params: {to: 1}\n", "j"))
        .getMessage().contains("missing 'workload'"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> JobFile.parse("workload: primes\ncheckpoints: -1\n", "j"))
        .getMessage().contains("'checkpoints' must be a whole number"));
  }
}
