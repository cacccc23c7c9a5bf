package dev.gleaner.deploy.launch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.worker.WorkerEvents;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's events file ({@code gleaner worker --events-file FILE}): what it tells of its failure
 * injection and its vacates ({@link WorkerEvents}), one JSON object a line, appended as it happens:
 * {@code {"event":"failure-clock","atMillis":E}} when the drawn interruptions' clock started,
 * {@code {"event":"down","atMillis":E}} each time the failure injection took it down, and
 * {@code {"event":"vacated","atMillis":E,"tookMillis":T,"late":false}} for each vacate (times in epoch
 * ms). The tools that start worker JVMs read it back ({@link #read}) instead of the worker's log.
 */
public final class WorkerEventsFile implements WorkerEvents {
  private static final Logger log = LoggerFactory.getLogger(WorkerEventsFile.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The clock of the drawn interruptions started. */
  public static final String FAILURE_CLOCK = "failure-clock";
  /** The failure injection took the worker down. */
  public static final String DOWN = "down";
  /** The worker vacated for its owner. */
  public static final String VACATED = "vacated";

  /**
   * One line of the file.
   *
   * @param tookMillis how long a vacate took, from the owner seen back to the master told; 0 for the others
   */
  public record Event(String kind, long atMillis, long tookMillis) {}

  private final Path file;

  private WorkerEventsFile(Path file) {
    this.file = file;
  }

  /**
   * Events appended to {@code file} (made if it is not there; a worker started again under the same
   * file adds to the earlier lives' lines); a file that cannot be written is one line, before the
   * worker starts.
   */
  public static WorkerEventsFile appendingTo(Path file) {
    try {
      Files.writeString(file, "", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalArgumentException("--events-file " + file + ": cannot write it (" + PortFile.reason(e) + ")", e);
    }
    return new WorkerEventsFile(file);
  }

  @Override
  public void failureClockStarted(long epochMillis) {
    append(FAILURE_CLOCK, epochMillis, null);
  }

  @Override
  public void wentDown(long epochMillis) {
    append(DOWN, epochMillis, null);
  }

  @Override
  public void vacated(long epochMillis, Duration took, boolean late) {
    Map<String, Object> more = new LinkedHashMap<>();
    more.put("tookMillis", took.toMillis());
    more.put("late", late);
    append(VACATED, epochMillis, more);
  }

  private synchronized void append(String kind, long atMillis, Map<String, Object> more) {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("event", kind);
    line.put("atMillis", atMillis);
    if (more != null) {
      line.putAll(more);
    }
    try {
      // one write of one whole line: a reader finds each line whole, or not yet
      Files.writeString(file, JSON.writeValueAsString(line) + "\n", StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      // the worker goes on: the record misses this line, and says so in the log
      log.error("cannot append '{}' to the events file {}: {}", kind, file, e.getMessage(), e);
    }
  }

  /** The events in {@code file}, in order; none when there is no such file. */
  public static List<Event> read(Path file) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    List<Event> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).isBlank()) {
        out.add(parse(lines.get(i), file, i + 1));
      }
    }
    return out;
  }

  /** The events of {@code kind} in {@code file}, in order. */
  public static List<Event> read(Path file, String kind) throws IOException {
    return read(file).stream().filter(e -> e.kind().equals(kind)).toList();
  }

  private static Event parse(String line, Path file, int number) throws IOException {
    try {
      JsonNode n = JSON.readTree(line);
      JsonNode kind = n.get("event");
      JsonNode at = n.get("atMillis");
      JsonNode took = n.get("tookMillis");
      if (kind != null && kind.isTextual() && at != null && at.isIntegralNumber() && at.canConvertToLong()
          && (took == null || took.isIntegralNumber() && took.canConvertToLong())) {
        return new Event(kind.asText(), at.asLong(), took == null ? 0 : took.asLong());
      }
    } catch (JsonProcessingException e) {
      throw new IOException(file + " line " + number + ": not JSON (" + e.getOriginalMessage() + "): " + line, e);
    }
    throw new IOException(file + " line " + number + ": not an event {\"event\": KIND, \"atMillis\": E}: " + line);
  }
}
