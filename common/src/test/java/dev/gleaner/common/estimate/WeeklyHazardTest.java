package dev.gleaner.common.estimate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.RiskModel;
import java.time.LocalDateTime;
import java.time.ZoneId;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class WeeklyHazardTest {
  private static final ZoneId[] ZONES = {ZoneId.of("UTC"), ZoneId.of("Asia/Kolkata"), ZoneId.of("Europe/Paris")};

  /** Time up lands in the hours of the week minute by minute, as counting each minute says. */
  @Property(tries = 200)
  void timeUpIsSpreadOverTheHoursAsMinuteByMinuteCountingSays(@ForAll @IntRange(min = 0, max = 4 * 10080) int startMinute,
      @ForAll @IntRange(min = 0, max = 3 * 10080) int minutes, @ForAll @IntRange(min = 0, max = 2) int z) {
    // a Monday 00:00 UTC: 2026-11-23
    double t0 = 1_795_392_000 + startMinute * 60.0;
    WeeklyHazard w = new WeeklyHazard(ZONES[z]);
    w.up(t0, t0 + minutes * 60.0);
    double[] expected = new double[WeeklyHazard.HOURS];
    for (int m = 0; m < minutes; m++) {
      expected[w.hourOfWeek(t0 + m * 60.0 + 30)] += 60;
    }
    for (int h = 0; h < WeeklyHazard.HOURS; h++) {
      // the rate of one hour alone says its exposure back: (0 + 1 * c) / (T_h + c) with overall 1
      double hourStart = hourStarting(w, t0, h);
      double r = w.rate(hourStart, 3600, 1);
      assertEquals(WeeklyHazard.PRIOR_SECONDS / (expected[h] + WeeklyHazard.PRIOR_SECONDS), r, 1e-9,
          "hour " + h + " of the week");
    }
    assertEquals(minutes * 60.0, w.exposure(), 1e-6);
  }

  /** An instant in the week after {@code t0} that starts hour {@code h} of the week on the zone's clock. */
  private static double hourStarting(WeeklyHazard w, double t0, int h) {
    double t = w.nextHour(t0);
    for (int i = 0; i < 2 * WeeklyHazard.HOURS && w.hourOfWeek(t) != h; i++) {
      t = w.nextHour(t);
    }
    return t;
  }

  @Test
  void theRateOfAHorizonWeighsEachHourByTheTimeSpentInIt() {
    WeeklyHazard w = new WeeklyHazard(ZoneId.of("UTC"));
    double monday = 1_795_392_000;
    // four weeks up; interrupted four times on Monday between 08:00 and 09:00
    w.up(monday, monday + 4 * WeeklyHazard.WEEK);
    for (int week = 0; week < 4; week++) {
      w.interrupted(monday + week * WeeklyHazard.WEEK + 8.5 * 3600);
    }
    double overall = 4 / (4 * WeeklyHazard.WEEK);
    double eightToNine = (4 + overall * WeeklyHazard.PRIOR_SECONDS) / (4 * 3600 + WeeklyHazard.PRIOR_SECONDS);
    double quiet = (overall * WeeklyHazard.PRIOR_SECONDS) / (4 * 3600 + WeeklyHazard.PRIOR_SECONDS);
    assertEquals(eightToNine, w.rate(monday + 8 * 3600, 3600, overall), 1e-15);
    // 07:30 to 09:30: half an hour quiet, the risky hour, half an hour quiet
    assertEquals((0.5 * quiet + eightToNine + 0.5 * quiet) / 2, w.rate(monday + 7.5 * 3600, 2 * 3600, overall), 1e-15);
  }

  /** The estimator plans a desktop whose owner comes in on Monday mornings as riskier then. */
  @Test
  void theEstimatorPlansWithTheRateOfTheHoursAhead() {
    ZoneId zone = ZoneId.of("Europe/Paris");
    double zero = LocalDateTime.of(2026, 11, 2, 0, 0).atZone(zone).toEpochSecond();
    Estimator e = new Estimator();
    e.wallClock(zero, zone);
    for (int week = 0; week < 3; week++) {
      // up from Monday 09:00, the owner back the next Monday at 08:30
      double start = zero + week * WeeklyHazard.WEEK + 9 * 3600;
      e.pastSession("pc", start, start + WeeklyHazard.WEEK - 1800, true);
    }
    e.history("pc", 3, 3 * (WeeklyHazard.WEEK - 1800));
    e.calibrated("pc", "primes", 100);
    double mondayMorning = 3 * WeeklyHazard.WEEK + 6 * 3600;
    double saturdayNight = 3 * WeeklyHazard.WEEK + 5 * 86400 + 20 * 3600;
    double early = e.risk("pc", mondayMorning).rate();
    double late = e.risk("pc", saturdayNight).rate();
    assertTrue(early > 5 * late, "Monday 06:00 (the owner comes at 08:30): " + early + ", Saturday 20:00: " + late);
    assertTrue(e.worker("pc", "primes", false, 0, RiskModel.LINEAR, mondayMorning).risk()
        > e.worker("pc", "primes", false, 0, RiskModel.LINEAR, saturdayNight).risk());
  }
}
