package dev.gleaner.deploy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** A redrawn progress line never wraps: it is cut to the terminal's width, the last column left free. */
class TerminalTest {
  @Test
  void aLineLongerThanTheTerminalIsCutWhereItWouldWrap() {
    String line = "job-1 [#######.......]  42.00%  saved 4.20M of 10.00M  1.60M units/s  forecast: 9.80M saved";
    assertEquals(line, Terminal.fit(line, line.length() + 1), "a line that fits stays whole");
    String cut = Terminal.fit(line, 40);
    assertEquals(39, cut.length(), cut);
    assertEquals(line.substring(0, 36) + "...", cut);
    assertEquals("j...", Terminal.fit(line, 2), "however narrow, a few characters and the cut's mark");
  }
}
