package dev.gleaner.deploy.weekend;

import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.FtaTraceFormat;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Reads an availability trace file in the Failure Trace Archive's tab format ({@link FtaTraceFormat}). */
public final class TraceFile {
  private TraceFile() {}

  public static AvailabilityTrace read(Path path) {
    String text;
    try {
      text = Files.readString(path);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("trace file " + path + " does not exist");
    } catch (MalformedInputException e) {
      throw new IllegalArgumentException("trace file " + path + " is not UTF-8 text");
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read trace file " + path + ": " + e.getMessage(), e);
    }
    return FtaTraceFormat.parse(text, "trace file " + path);
  }

  /** A figure as the trace and replay commands print it: a whole number without a fraction, else as Java writes it. */
  public static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }
}
