package dev.gleaner.deploy.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.deploy.CommandLineTest;
import dev.gleaner.deploy.Gleaner;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** What starts gleaner from below the entry point names it, and runs it, as the entry point itself. */
class EntryPointTest {
  @Test
  void namesTheEntryPoint() {
    assertEquals(Gleaner.class.getName(), EntryPoint.NAME);
  }

  @Test
  void runsACommandLineAsTheEntryPointDoes() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EntryPoint.run(new PrintWriter(out, true), new PrintWriter(err, true), "--version");
    CommandLineTest.Run r = CommandLineTest.gleaner("--version");
    assertEquals(r.code(), code);
    assertEquals(r.out(), out.toString());
    assertEquals(r.err(), err.toString());
    assertEquals(2, EntryPoint.run(new PrintWriter(out, true), new PrintWriter(err, true), "--bogus"));
  }
}
