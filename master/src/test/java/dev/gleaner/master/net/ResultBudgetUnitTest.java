package dev.gleaner.master.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultBudgetUnitTest {
  @Test
  void halfTheHeapAtTheResultLimitAndAlwaysOne() {
    assertEquals(4, ResultBudget.forHeap(2048L << 20, 256L << 20).places());
    assertEquals(1, ResultBudget.forHeap(256L << 20, 256L << 20).places(), "a small heap still joins one");
    assertThrows(IllegalArgumentException.class, () -> new ResultBudget(0));
  }

  @Test
  void placesPassToTheLongestWaitingAndACancelledWaitIsSkipped() {
    ResultBudget b = new ResultBudget(1);
    List<String> ran = new ArrayList<>();
    Runnable first = () -> ran.add("first");
    Runnable second = () -> ran.add("second");
    Runnable third = () -> ran.add("third");
    assertTrue(b.takeOrAwait(() -> ran.add("never")));
    assertFalse(b.takeOrAwait(first));
    assertFalse(b.takeOrAwait(second));
    assertFalse(b.takeOrAwait(third));
    assertEquals(3, b.waiting());
    assertTrue(b.cancel(second), "its connection closed");
    assertFalse(b.cancel(second));
    b.give();
    b.give();
    assertEquals(List.of("first", "third"), ran);
    assertEquals(0, b.waiting());
    b.give();
    assertTrue(b.takeOrAwait(() -> ran.add("never")), "the place is free again");
  }
}
