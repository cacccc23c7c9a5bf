package dev.gleaner.deploy.bench.links;

import dev.gleaner.deploy.testbed.Rate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A worker's link changed while a job runs ({@code gleaner bench --link-change SECONDS:wI:RATE}): so
 * many seconds after each run's job was submitted, worker I's downlink is shaped to RATE (and back after
 * the run), and the bench reads how the master's estimate of that link followed, transfer by transfer.
 *
 * @param afterSeconds seconds after the run's job was submitted
 * @param worker the worker, 1 for w1
 * @param rate its link's new rate
 */
public record LinkChange(double afterSeconds, int worker, Rate rate) {
  /** Transfers after the change whose estimates the bench reports. */
  static final int TRANSFERS = 5;

  public LinkChange {
    if (!(afterSeconds >= 0) || Double.isInfinite(afterSeconds) || worker < 1) {
      throw new IllegalArgumentException("--link-change is SECONDS:wI:RATE with SECONDS >= 0 and I >= 1");
    }
  }

  /** Reads {@code SECONDS:wI:RATE} (or {@code SECONDS:I:RATE}), e.g. {@code 3:w1:20mbit}. */
  public static LinkChange parse(String text) {
    String[] parts = text.trim().split(":", 3);
    if (parts.length != 3) {
      throw new IllegalArgumentException("--link-change is SECONDS:wI:RATE (e.g. 3:w1:20mbit), not '" + text + "'");
    }
    try {
      String w = parts[1].startsWith("w") ? parts[1].substring(1) : parts[1];
      return new LinkChange(Double.parseDouble(parts[0]), Integer.parseInt(w), Rate.parse(parts[2]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--link-change is SECONDS:wI:RATE (e.g. 3:w1:20mbit), not '" + text + "'", e);
    }
  }

  /**
   * How the master's estimate of the link followed the change: {@code samples} are the driver's
   * readings of the worker's estimate, each {epoch millis, bytes/s, transfers measured}, and
   * {@code atMillis} when the link was changed. For each of the first {@link #TRANSFERS} transfers
   * measured after the one under way at the change, the first reading that counts it, and its ratio
   * to the new rate ({@code ratios}) and to what the new rate carries of TCP's payload ({@code
   * payloadRatios}, {@link Rate#TCP_PAYLOAD}: what a transfer can go at, and what the simulator and
   * the egress's figure are held to).
   */
  static Map<String, Object> followed(List<List<Number>> samples, long atMillis, Rate rate) {
    long before = 0;
    for (List<Number> s : samples) {
      if (s.get(0).longValue() <= atMillis) {
        before = Math.max(before, s.get(2).longValue());
      }
    }
    // the first transfer measured after the change may have begun before it: it is not counted
    long from = before + 1;
    Double[] estimates = new Double[TRANSFERS];
    for (List<Number> s : samples) {
      long k = s.get(2).longValue() - from;
      if (s.get(0).longValue() <= atMillis) {
        continue;
      }
      for (int i = 1; i <= Math.min(k, TRANSFERS); i++) {
        if (estimates[i - 1] == null) {
          estimates[i - 1] = s.get(1).doubleValue();
        }
      }
    }
    List<Double> values = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    List<Double> payloadRatios = new ArrayList<>();
    for (Double e : estimates) {
      if (e != null) {
        values.add(e);
        ratios.add(e / rate.bytesPerSecond());
        payloadRatios.add(e / (rate.bytesPerSecond() * Rate.TCP_PAYLOAD));
      }
    }
    return Map.of("transfersBefore", before, "estimates", values, "ratios", ratios, "payloadRatios", payloadRatios);
  }
}
