package dev.gleaner.common.time;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class WeeklyWindowsTest {
  private static final ZoneId UTC = ZoneOffset.UTC;
  /** Monday 2026-11-23 00:00 UTC. */
  private static final LocalDateTime MONDAY = LocalDateTime.of(2026, 11, 23, 0, 0);

  private static Instant at(DayOfWeek day, int hour, int minute) {
    return MONDAY.plusDays(day.getValue() - 1L).withHour(hour).withMinute(minute).toInstant(ZoneOffset.UTC);
  }

  private static WeeklyWindows parse(String... texts) {
    return WeeklyWindows.parse(List.of(texts), UTC);
  }

  @Test
  void aWeekendWindowHoldsSaturdayAndEndsOnMonday() {
    WeeklyWindows w = parse("Fri 18:00-Mon 08:00");
    assertTrue(w.contains(at(DayOfWeek.SATURDAY, 14, 0)));
    assertTrue(w.contains(at(DayOfWeek.MONDAY, 7, 59)));
    assertFalse(w.contains(at(DayOfWeek.MONDAY, 8, 0)));
    assertFalse(w.contains(at(DayOfWeek.FRIDAY, 17, 59)));
    assertEquals(Optional.of(at(DayOfWeek.MONDAY, 8, 0).plus(java.time.Duration.ofDays(7))),
        w.end(at(DayOfWeek.SATURDAY, 14, 0)), "Saturday's window ends on the next Monday");
    assertEquals(Optional.of(at(DayOfWeek.MONDAY, 8, 0)), w.end(at(DayOfWeek.MONDAY, 3, 0)));
    assertEquals(at(DayOfWeek.FRIDAY, 18, 0), w.nextStart(at(DayOfWeek.TUESDAY, 9, 0)));
  }

  @Test
  void aDailyWindowAcrossMidnightRepeatsEveryDay() {
    WeeklyWindows w = parse("18:00-08:00");
    assertTrue(w.contains(at(DayOfWeek.WEDNESDAY, 23, 0)));
    assertTrue(w.contains(at(DayOfWeek.THURSDAY, 2, 0)));
    assertFalse(w.contains(at(DayOfWeek.THURSDAY, 12, 0)));
    assertEquals(Optional.of(at(DayOfWeek.THURSDAY, 8, 0)), w.end(at(DayOfWeek.WEDNESDAY, 23, 0)));
    assertEquals(at(DayOfWeek.THURSDAY, 18, 0), w.nextStart(at(DayOfWeek.THURSDAY, 12, 0)));
    // Sunday night runs into Monday morning across the week's end
    assertEquals(Optional.of(at(DayOfWeek.MONDAY, 8, 0).plus(java.time.Duration.ofDays(7))),
        w.end(at(DayOfWeek.SUNDAY, 22, 0)));
  }

  @Test
  void windowsGivenSeveralWaysAreMergedWhereTheyTouch() {
    WeeklyWindows w = parse("Sat 00:00-Sun 00:00, Sun 00:00-Sun 12:00", "Mon 08:00-Mon 09:00");
    assertEquals(Optional.of(at(DayOfWeek.SUNDAY, 12, 0)), w.end(at(DayOfWeek.SATURDAY, 1, 0)));
    assertTrue(w.contains(at(DayOfWeek.MONDAY, 8, 30)));
    assertEquals(at(DayOfWeek.SATURDAY, 0, 0), w.nextStart(at(DayOfWeek.MONDAY, 9, 0)));
  }

  @Test
  void theWholeWeekHasNoEnd() {
    WeeklyWindows w = parse("00:00-24:00");
    assertTrue(w.always());
    assertEquals(Optional.empty(), w.end(at(DayOfWeek.THURSDAY, 3, 0)));
  }

  @Test
  void badWindowsAreRefusedNamingTheTextAndTheForm() {
    for (String bad : List.of("Fri 18:00", "Fry 18:00-Mon 08:00", "25:00-08:00", "18:00-18:00", "Fri 18:60-Mon 08:00",
        "weekends", "Fri 24:00-Mon 08:00")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse(bad), "accepted " + bad);
      assertTrue(e.getMessage().contains("expected 'DAY HH:MM-DAY HH:MM'"), e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse("Fri 18:00-Mon 08:00,"));
    assertTrue(e.getMessage().contains("empty window"), e.getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> parse("Fry 18:00-Mon 08:00")).getMessage()
        .contains("'Fry'"));
  }

  @Test
  void asksAboutAnInstantOutsideAreRefused() {
    WeeklyWindows w = parse("Sat 00:00-Sun 00:00");
    assertThrows(IllegalStateException.class, () -> w.end(at(DayOfWeek.MONDAY, 1, 0)));
  }

  @Test
  void localTimeIsReadInTheZoneAcrossADaylightSavingChange() {
    // Europe/Paris leaves summer time on Sunday 2026-10-25 at 03:00 (back to 02:00)
    WeeklyWindows w = WeeklyWindows.parse(List.of("Fri 18:00-Mon 08:00"), ZoneId.of("Europe/Paris"));
    Instant saturday = Instant.parse("2026-10-24T12:00:00Z");
    assertTrue(w.contains(saturday));
    assertEquals(Optional.of(Instant.parse("2026-10-26T07:00:00Z")), w.end(saturday), "08:00 in winter time");
  }

  // ---------------------------------------------------------------- properties against a reference model

  /** A window as minutes of the week from and to, as the reference model sees it. */
  record Raw(int fromDay, int fromMinute, int toDay, int toMinute) {
    String text() {
      String[] days = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
      return days[fromDay] + " " + hhmm(fromMinute) + "-" + days[toDay] + " " + hhmm(toMinute);
    }

    /** Brute force: walk the minutes from the start to the end. */
    boolean holds(int minuteOfWeek) {
      int from = fromDay * 1440 + fromMinute;
      int to = toDay * 1440 + toMinute;
      int length = Math.floorMod(to - from, WeeklyWindows.WEEK);
      return Math.floorMod(minuteOfWeek - from, WeeklyWindows.WEEK) < length;
    }

    private static String hhmm(int m) {
      return String.format("%02d:%02d", m / 60, m % 60);
    }
  }

  @Provide
  Arbitrary<List<Raw>> windows() {
    Arbitrary<Raw> raw = Combinators.combine(Arbitraries.integers().between(0, 6), Arbitraries.integers().between(0, 1439),
        Arbitraries.integers().between(0, 6), Arbitraries.integers().between(0, 1439))
        .as(Raw::new).filter(r -> r.fromDay * 1440 + r.fromMinute != r.toDay * 1440 + r.toMinute);
    return raw.list().ofMinSize(1).ofMaxSize(4);
  }

  private static boolean model(List<Raw> raws, Instant t) {
    LocalDateTime l = LocalDateTime.ofInstant(t, UTC);
    int m = (l.getDayOfWeek().getValue() - 1) * 1440 + l.getHour() * 60 + l.getMinute();
    return raws.stream().anyMatch(r -> r.holds(m));
  }

  private static WeeklyWindows of(List<Raw> raws) {
    List<String> texts = new ArrayList<>();
    raws.forEach(r -> texts.add(r.text()));
    return WeeklyWindows.parse(texts, UTC);
  }

  @Property(tries = 300)
  void membershipAgreesWithTheBruteForceModel(@ForAll("windows") List<Raw> raws,
      @ForAll @LongRange(min = 0, max = 7 * 24 * 60 - 1) long minute) {
    Instant t = at(DayOfWeek.MONDAY, 0, 0).plusSeconds(minute * 60);
    assertEquals(model(raws, t), of(raws).contains(t));
  }

  @Property(tries = 200)
  void aWindowEndsWhereTheModelFirstSaysOutside(@ForAll("windows") List<Raw> raws,
      @ForAll @LongRange(min = 0, max = 7 * 24 * 60 - 1) long minute) {
    WeeklyWindows w = of(raws);
    Instant t = at(DayOfWeek.MONDAY, 0, 0).plusSeconds(minute * 60);
    Instant probe = t;
    if (w.contains(t)) {
      Optional<Instant> end = w.end(t);
      // walk minute by minute with the model: inside until the end, outside at it
      for (int i = 0; i < 2 * WeeklyWindows.WEEK && (end.isEmpty() || probe.isBefore(end.get())); i++) {
        assertTrue(model(raws, probe), "inside at " + probe + " before the end " + end);
        probe = probe.plusSeconds(60);
      }
      end.ifPresent(e -> assertFalse(model(raws, e), "outside at the end " + e));
    } else {
      Instant next = w.nextStart(t);
      for (; probe.isBefore(next); probe = probe.plusSeconds(60)) {
        assertFalse(model(raws, probe), "outside at " + probe + " before the next start " + next);
      }
      assertTrue(model(raws, next), "inside at the next start " + next);
    }
  }
}
