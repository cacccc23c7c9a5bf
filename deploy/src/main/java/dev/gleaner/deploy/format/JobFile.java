package dev.gleaner.deploy.format;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.gleaner.master.web.JobFields;
import dev.gleaner.protocol.JobSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Reads a job file (YAML, or JSON, which is YAML too): its keys are {@link JobFields}' (an unknown
 * key is an error that names it).
 */
public final class JobFile {
  static final List<String> KEYS = JobFields.KEYS;

  private JobFile() {}

  public static JobSpec read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("job file " + file + " does not exist", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read job file " + file + ": " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  /**
   * A parser's message in one line: its sentences without the quoted source and the caret under it
   * (the line and column follow it), e.g. "while parsing a flow mapping; expected ',' or '}', but got :".
   */
  static String oneLine(String message) {
    List<String> parts = new java.util.ArrayList<>();
    for (String line : message.split("\\R")) {
      String l = line.strip();
      if (!l.isEmpty() && !line.startsWith(" ") && !l.startsWith("in 'reader'")) {
        parts.add(l);
      }
    }
    return parts.isEmpty() ? message.strip().replaceAll("\\s+", " ") : String.join("; ", parts);
  }

  static JobSpec parse(String text, String where) {
    JsonNode root;
    try {
      root = new ObjectMapper(new YAMLFactory()).readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(where + ": not valid YAML or JSON: " + oneLine(e.getOriginalMessage())
          + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
              + e.getLocation().getColumnNr() + ")"), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException(where + ": a job file is a mapping with at least 'workload' and 'params'");
    }
    return JobFields.fromTree(root, where);
  }
}
