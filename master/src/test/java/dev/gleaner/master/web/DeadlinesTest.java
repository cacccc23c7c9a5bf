package dev.gleaner.master.web;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.protocol.JobSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** Deadlines and ends as people write them, from a fixed now. */
class DeadlinesTest {
  private static final ZonedDateTime FRIDAY_EVENING = ZonedDateTime.of(2026, 11, 27, 18, 30, 0, 0,
      ZoneId.of("Europe/Paris"));

  @Test
  void durationsReadAsPeopleWriteThem() {
    assertEquals(36_000, Deadlines.seconds("10h"));
    assertEquals(5_400, Deadlines.seconds("1h30m"));
    assertEquals(172_800, Deadlines.seconds(" 2d "));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Deadlines.seconds("ten hours"));
    assertEquals("'ten hours' is not a duration; write it as 10h, 1h30m, 90m, 45s or 2d", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Deadlines.seconds("0h"));
  }

  @Test
  void durationsCountFromNow() {
    assertEquals(FRIDAY_EVENING.toInstant().plus(Duration.ofHours(62)), Deadlines.parse("62h", FRIDAY_EVENING));
    assertEquals(FRIDAY_EVENING.toInstant().plus(Duration.ofMinutes(90)), Deadlines.parse("1h30m", FRIDAY_EVENING));
    assertEquals(FRIDAY_EVENING.toInstant().plus(Duration.ofDays(2)), Deadlines.parse("2d", FRIDAY_EVENING));
    assertEquals(FRIDAY_EVENING.toInstant().plus(Duration.ofMillis(1500)), Deadlines.parse("1.5s", FRIDAY_EVENING));
  }

  @Test
  void aDayAndATimeIsTheNextOneToCome() {
    ZoneId paris = ZoneId.of("Europe/Paris");
    assertEquals(ZonedDateTime.of(2026, 11, 30, 8, 0, 0, 0, paris).toInstant(),
        Deadlines.parse("Mon 08:00", FRIDAY_EVENING));
    assertEquals(ZonedDateTime.of(2026, 11, 30, 8, 0, 0, 0, paris).toInstant(),
        Deadlines.parse("monday 8:00", FRIDAY_EVENING));
    // today's, while it is still to come; otherwise next week's
    assertEquals(ZonedDateTime.of(2026, 11, 27, 20, 0, 0, 0, paris).toInstant(),
        Deadlines.parse("Fri 20:00", FRIDAY_EVENING));
    assertEquals(ZonedDateTime.of(2026, 12, 4, 18, 0, 0, 0, paris).toInstant(),
        Deadlines.parse("Fri 18:00", FRIDAY_EVENING));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Deadlines.parse("Mnday 08:00", FRIDAY_EVENING));
    assertTrue(e.getMessage().startsWith("cannot read 'Mnday 08:00' as a time;"), e.getMessage());
  }

  @Test
  void aDateAndTimeIsInTheLocalZoneUnlessItNamesOne() {
    assertEquals(ZonedDateTime.of(2026, 11, 30, 8, 0, 0, 0, ZoneId.of("Europe/Paris")).toInstant(),
        Deadlines.parse("2026-11-30T08:00", FRIDAY_EVENING));
    assertEquals(Instant.parse("2026-11-30T07:00:00Z"), Deadlines.parse("2026-11-30T07:00:00Z", FRIDAY_EVENING));
  }

  @Test
  void aTimeOfDayIsTheNextOneToCome() {
    assertEquals(ZonedDateTime.of(2026, 11, 28, 8, 0, 0, 0, ZoneId.of("Europe/Paris")).toInstant(),
        Deadlines.parse("08:00", FRIDAY_EVENING), "Saturday morning");
    assertEquals(ZonedDateTime.of(2026, 11, 27, 23, 0, 0, 0, ZoneId.of("Europe/Paris")).toInstant(),
        Deadlines.parse("23:00", FRIDAY_EVENING), "tonight");
  }

  @Test
  void anythingElseIsOneLineThatSaysWhatIsAccepted() {
    for (String bad : new String[] {"", "soon", "62", "0h", "2026-13-01T08:00", "25:00"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Deadlines.parse(bad, FRIDAY_EVENING), bad);
      assertTrue(e.getMessage().contains("62h") || e.getMessage().contains("no time"), e.getMessage());
    }
  }

  @Test
  void aJobTakesADeadlineAndReplication() throws Exception {
    ObjectMapper json = new ObjectMapper();
    JobSpec s = JobFields.fromTree(json.readTree("{\"workload\": \"primes\", \"params\": {\"to\": 100},"
        + " \"deadline\": \"10m\", \"replication\": true}"), "the request");
    assertTrue(s.getDeadlineMillis() > System.currentTimeMillis() + 9 * 60_000L);
    assertTrue(s.getReplication());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> JobFields.fromTree(json.readTree("{\"workload\": \"primes\", \"replication\": \"yes please\"}"),
            "the request"));
    assertEquals("the request: 'replication' must be true or false, got \"yes please\"", e.getMessage());
  }
}
