package dev.gleaner.worker.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.time.WeeklyWindows;
import dev.gleaner.worker.owner.OwnerActivity.Observation;
import dev.gleaner.worker.owner.OwnerPolicy.State;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The owner policy on a compressed week: instants moved by hand, observations made up. */
class OwnerPolicyTest {
  /** Saturday 2026-11-28 10:00 UTC. */
  private static final Instant SATURDAY = Instant.parse("2026-11-28T10:00:00Z");
  private static final OwnerActivity SOURCE = new OwnerActivity() {
    @Override
    public String name() {
      return "a hand-fed source";
    }

    @Override
    public Observation observe(Instant now) {
      throw new UnsupportedOperationException("the policy is fed observations directly");
    }
  };

  private static OwnerConfig config() {
    return OwnerConfig.defaults(null, List.of(SOURCE));
  }

  private static List<Observation> quiet() {
    return List.of(Observation.nothing());
  }

  private static List<Observation> input(Instant at) {
    return List.of(Observation.input(at, "keyboard or mouse input"));
  }

  @Test
  void startsOnlyAfterTheMachineWasIdleFifteenMinutesSinceTheWatchBegan() {
    OwnerPolicy p = new OwnerPolicy(config(), SATURDAY);
    assertFalse(p.step(SATURDAY.plus(Duration.ofMinutes(14)), quiet()).changed());
    OwnerPolicy.Step s = p.step(SATURDAY.plus(Duration.ofMinutes(15)), quiet());
    assertEquals(State.WORKING, s.to());
    assertNull(s.until(), "no windows: no end");
  }

  @Test
  void inputRestartsTheIdleClockAndTheOwnersReturnVacatesWithTheEarliestTimeBack() {
    OwnerPolicy p = new OwnerPolicy(config(), SATURDAY);
    p.step(SATURDAY.plus(Duration.ofMinutes(10)), input(SATURDAY.plus(Duration.ofMinutes(10))));
    assertEquals(State.AWAY, p.step(SATURDAY.plus(Duration.ofMinutes(20)), quiet()).to());
    assertEquals(State.WORKING, p.step(SATURDAY.plus(Duration.ofMinutes(25)), quiet()).to());
    Instant back = SATURDAY.plus(Duration.ofMinutes(90));
    OwnerPolicy.Step v = p.step(back, input(back));
    assertEquals(State.AWAY, v.to());
    assertTrue(v.reason().contains("keyboard or mouse input"), v.reason());
    assertEquals(back.plus(Duration.ofMinutes(15)), v.backAt());
  }

  @Test
  void otherProcessesLoadCountsAsTheOwnerOnceItsMinuteAveragePassesTheThreshold() {
    OwnerPolicy p = new OwnerPolicy(config().withIdleBeforeStart(Duration.ZERO), SATURDAY);
    assertEquals(State.WORKING, p.step(SATURDAY, List.of(Observation.load(0.1, "0.1 cores"))).to());
    // one core busy: the smoothed load crosses 0.3 after about 21 s, polled every second
    Instant t = SATURDAY;
    OwnerPolicy.Step s;
    int polls = 0;
    do {
      t = t.plusSeconds(1);
      s = p.step(t, List.of(Observation.load(1.0, "other processes keep 1.00 cores busy")));
      polls++;
    } while (!s.changed() && polls < 120);
    assertEquals(State.AWAY, s.to());
    assertTrue(polls > 5 && polls < 40, "a burst of a few seconds is not the owner; a minute of load is: " + polls);
  }

  @Test
  void suspendModePausesForAShortVisitAndVacatesWhenItLasts() {
    OwnerConfig c = config().withIdleBeforeStart(Duration.ZERO).withIdleBeforeResume(Duration.ofMinutes(5))
        .withOnOwner(OwnerConfig.OnOwner.SUSPEND, Duration.ofMinutes(10));
    OwnerPolicy p = new OwnerPolicy(c, SATURDAY);
    assertEquals(State.WORKING, p.step(SATURDAY, quiet()).to());
    Instant visit = SATURDAY.plus(Duration.ofHours(1));
    assertEquals(State.SUSPENDED, p.step(visit, input(visit)).to());
    assertFalse(p.step(visit.plus(Duration.ofMinutes(4)), quiet()).changed());
    assertEquals(State.WORKING, p.step(visit.plus(Duration.ofMinutes(5)), quiet()).to(), "a short visit: resumed");
    Instant again = visit.plus(Duration.ofMinutes(30));
    assertEquals(State.SUSPENDED, p.step(again, input(again)).to());
    Instant t = again;
    for (int i = 1; i < 10; i++) {
      t = again.plus(Duration.ofMinutes(i));
      assertFalse(p.step(t, input(t)).changed(), "still suspended after " + i + " min");
    }
    OwnerPolicy.Step s = p.step(again.plus(Duration.ofMinutes(10)), input(again.plus(Duration.ofMinutes(10))));
    assertEquals(State.AWAY, s.to());
    assertTrue(s.reason().contains("10m"), s.reason());
  }

  @Test
  void windowsAloneOpenAndCloseWorkAndDeclareTheirEnd() {
    WeeklyWindows w = WeeklyWindows.parse(List.of("Fri 18:00-Mon 08:00"), ZoneOffset.UTC);
    OwnerPolicy p = new OwnerPolicy(OwnerConfig.defaults(w, List.of()), SATURDAY);
    OwnerPolicy.Step open = p.step(SATURDAY, List.of());
    assertEquals(State.WORKING, open.to(), "no owner to wait for inside the window");
    assertEquals(Instant.parse("2026-11-30T08:00:00Z"), open.until());
    OwnerPolicy.Step closed = p.step(Instant.parse("2026-11-30T08:00:00Z"), List.of());
    assertEquals(State.AWAY, closed.to());
    assertEquals(Instant.parse("2026-12-04T18:00:00Z"), closed.backAt(), "back on Friday evening");
  }

  @Test
  void windowsAndOwnerTogetherNeedBoth() {
    WeeklyWindows w = WeeklyWindows.parse(List.of("Fri 18:00-Mon 08:00"), ZoneOffset.UTC);
    Instant friday = Instant.parse("2026-11-27T17:00:00Z");
    OwnerPolicy p = new OwnerPolicy(OwnerConfig.defaults(w, List.of(SOURCE)), friday);
    assertFalse(p.step(Instant.parse("2026-11-27T17:59:00Z"), quiet()).changed(), "idle, but the window is closed");
    OwnerPolicy.Step s = p.step(Instant.parse("2026-11-27T18:00:00Z"), quiet());
    assertEquals(State.WORKING, s.to());
    assertEquals(Instant.parse("2026-11-30T08:00:00Z"), s.until());
  }

  @Test
  void withNoIdleTimeWorkStartsWhenTheOwnerLeavesNotWhileTheOwnerIsThere() {
    OwnerPolicy p = new OwnerPolicy(config().withIdleBeforeStart(Duration.ZERO), SATURDAY);
    Instant t = SATURDAY;
    assertEquals(State.AWAY, p.step(t, input(t)).to());
    for (int i = 1; i <= 5; i++) {
      Instant now = t.plusSeconds(i);
      assertFalse(p.step(now, input(now)).changed(), "the owner is at the computer");
    }
    assertEquals(State.WORKING, p.step(t.plusSeconds(6), quiet()).to());
  }

  @Test
  void durationsReadAsPeopleWriteThem() {
    assertEquals("15m", OwnerPolicy.human(Duration.ofMinutes(15)));
    assertEquals("1h30m", OwnerPolicy.human(Duration.ofMinutes(90)));
    assertEquals("30s", OwnerPolicy.human(Duration.ofSeconds(30)));
    assertEquals("0ms", OwnerPolicy.human(Duration.ZERO));
  }
}
