package dev.gleaner.worker.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.worker.owner.OwnerActivity.Observation;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The watch between its sources and the worker, on a clock moved by hand. */
class OwnerWatchTest {
  /** A clock that tests move. */
  static final class HandClock extends Clock {
    Instant now = Instant.parse("2026-11-28T10:00:00Z");

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  /** A source an owner "uses": present or not, or unreadable. */
  static final class HandSource implements OwnerActivity {
    boolean present;
    String broken;

    @Override
    public String name() {
      return "a hand-moved source";
    }

    @Override
    public Observation observe(Instant now) throws IOException {
      if (broken != null) {
        throw new IOException(broken);
      }
      return present ? Observation.input(now, "the owner's hand") : Observation.nothing();
    }
  }

  /** Records what the watch told the worker. */
  static final class RecordingMoves implements OwnerWatch.Moves {
    final List<String> moves = new ArrayList<>();

    @Override
    public void vacate(String reason, Instant backAt) {
      moves.add("vacate: " + reason + " / back at " + backAt);
    }

    @Override
    public void suspend(String reason) {
      moves.add("suspend: " + reason);
    }

    @Override
    public void resume(String reason) {
      moves.add("resume: " + reason);
    }

    @Override
    public void available(String reason, Instant until) {
      moves.add("available: " + reason);
    }
  }

  @Test
  void theWorkerStartsAwayTakesWorkWhenTheOwnerIsGoneAndVacatesWhenTheOwnerReturns() {
    HandClock clock = new HandClock();
    HandSource hand = new HandSource();
    RecordingMoves moves = new RecordingMoves();
    OwnerWatch watch = new OwnerWatch(OwnerConfig.defaults(null, List.of(hand)).withIdleBeforeStart(Duration.ofMinutes(1)),
        clock, moves);
    OwnerPolicy.Step first = watch.first();
    assertEquals(OwnerPolicy.State.AWAY, first.to());
    assertEquals(clock.now.plusSeconds(60), first.backAt());
    clock.now = clock.now.plusSeconds(60);
    watch.poll();
    hand.present = true;
    clock.now = clock.now.plusSeconds(1);
    watch.poll();
    hand.present = false;
    for (int i = 0; i < 60; i++) {
      clock.now = clock.now.plusSeconds(1);
      watch.poll();
    }
    assertEquals(List.of("available: the owner has been away for 1m",
        "vacate: the owner is back (the owner's hand) / back at 2026-11-28T10:02:01Z",
        "available: the owner has been away for 1m"), moves.moves);
  }

  @Test
  void aSourceThatCannotBeReadStopsTheStartAndLaterCountsAsTheOwner() {
    HandClock clock = new HandClock();
    HandSource hand = new HandSource();
    hand.broken = "permission denied";
    RecordingMoves moves = new RecordingMoves();
    OwnerWatch broken = new OwnerWatch(OwnerConfig.defaults(null, List.of(hand)), clock, moves);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, broken::first);
    assertTrue(e.getMessage().contains("a hand-moved source: permission denied"), e.getMessage());
    hand.broken = null;
    OwnerWatch watch = new OwnerWatch(OwnerConfig.defaults(null, List.of(hand)).withIdleBeforeStart(Duration.ZERO),
        clock, moves);
    assertEquals(OwnerPolicy.State.WORKING, watch.first().to());
    hand.broken = "permission denied";
    clock.now = clock.now.plusSeconds(1);
    watch.poll();
    assertEquals(OwnerPolicy.State.AWAY, watch.state());
    assertTrue(moves.moves.get(0).contains("cannot read a hand-moved source"), moves.moves.toString());
  }
}
