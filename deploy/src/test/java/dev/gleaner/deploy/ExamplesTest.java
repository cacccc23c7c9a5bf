package dev.gleaner.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.format.JobFile;
import dev.gleaner.protocol.JobSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The example job files in deploy/examples stay valid as the format evolves. */
class ExamplesTest {
  @Test
  void everyExampleJobFileParsesAndNamesAKnownWorkload() throws Exception {
    Path dir = Path.of("examples");
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
    }
    assertEquals(3, files.size(), "examples: " + files);
    Workloads known = Workloads.of(dev.gleaner.common.workload.ExecWorkload.definitionOnly());
    for (Path f : files) {
      JobSpec spec = JobFile.read(f);
      known.get(spec.getWorkload());
      if (spec.getWorkload().equals("primes")) {
        known.get("primes").range(spec.getParamsMap(), null);
      }
    }
  }
}
