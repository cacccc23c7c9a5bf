package dev.gleaner.deploy.chaos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.deploy.audit.StoreAudit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The jumps of the master's wall clock in a chaos run, as its fault injection recorded them (one JSON
 * line each in the file beside its fault file, {@code FaultFile.shiftsFile}), and the store's times
 * mapped back through them to the machine's clock.
 */
final class ClockShifts {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** From machine time {@code machineMillis} on, the master's wall clock reads {@code offsetMillis} off. */
  record Shift(long machineMillis, long offsetMillis) {}

  private ClockShifts() {}

  /** The jumps in {@code file}, in order; none when there is no such file (the clock never jumped). */
  static List<Shift> read(Path file) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    List<Shift> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) {
        continue;
      }
      out.add(parse(lines.get(i), file, i + 1));
    }
    return out;
  }

  private static Shift parse(String line, Path file, int number) {
    try {
      JsonNode n = JSON.readTree(line);
      JsonNode machine = n.get("machineMillis");
      JsonNode offset = n.get("offsetMillis");
      if (machine != null && machine.isIntegralNumber() && machine.canConvertToLong() && offset != null
          && offset.isIntegralNumber() && offset.canConvertToLong()) {
        return new Shift(machine.asLong(), offset.asLong());
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(file + " line " + number + ": not JSON (" + e.getOriginalMessage() + "): "
          + line, e);
    }
    throw new IllegalStateException(file + " line " + number + ": not a clock jump {\"machineMillis\": M,"
        + " \"offsetMillis\": O}: " + line);
  }

  /**
   * A time the master stored, on the machine's clock. Each offset held on the master's clock from
   * (its machine time + the offset) until the next jump, the last one until {@code nowMillis}; the
   * time is in one of those spans (they do not overlap unless a jump back is shorter than the run).
   */
  static long machineTime(long masterMillis, List<Shift> shifts, long nowMillis) {
    for (int k = shifts.size() - 1; k >= -1; k--) {
      long offset = k < 0 ? 0 : shifts.get(k).offsetMillis();
      long from = k < 0 ? Long.MIN_VALUE : shifts.get(k).machineMillis() + offset;
      long to = (k + 1 < shifts.size() ? shifts.get(k + 1).machineMillis() : nowMillis) + offset;
      if (masterMillis >= from && masterMillis < to) {
        return masterMillis - offset;
      }
    }
    throw new IllegalStateException("the master stored the time " + masterMillis
        + " ms, outside every span of its clock");
  }

  /** The committed pieces with their commit times on the machine's clock. */
  static List<StoreAudit.Committed> onMachineClock(List<StoreAudit.Committed> committed, List<Shift> shifts) {
    if (shifts.isEmpty()) {
      return committed;
    }
    List<StoreAudit.Committed> out = new ArrayList<>(committed.size());
    for (StoreAudit.Committed p : committed) {
      out.add(new StoreAudit.Committed(p.jobId(), p.start(), p.end(), p.workerId(),
          machineTime(p.committedAt(), shifts, System.currentTimeMillis())));
    }
    return out;
  }
}
