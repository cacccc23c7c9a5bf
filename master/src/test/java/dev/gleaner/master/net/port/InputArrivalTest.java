package dev.gleaner.master.net.port;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** When the port's own time of a transfer replaces the worker's span: the span is a tenth shorter. */
class InputArrivalTest {
  @Test
  void aLateReadIsAShorterSpanByMoreThanARoundTrip() {
    assertTrue(InputArrival.readLate(0.72, 0.84), "0.12 s of a 0.84 s transfer waited in the socket buffer");
    assertFalse(InputArrival.readLate(0.80, 0.84), "within a tenth");
    assertTrue(InputArrival.readLate(0.040, 0.090), "50 ms more on a 40 ms transfer");
  }
}
