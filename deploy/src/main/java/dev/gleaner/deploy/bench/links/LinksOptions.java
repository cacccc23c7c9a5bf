package dev.gleaner.deploy.bench.links;

import dev.gleaner.deploy.testbed.Rate;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** The options of {@code gleaner bench --links}, mixed into the bench command. */
public final class LinksOptions {
  @Option(names = "--links", paramLabel = "RATE,...", split = ",",
      description = "Instead: build a network of namespaces here (root only), one worker JVM per RATE behind a link"
          + " of that rate (tc's forms: 100mbit, 800kbit; or 12.5MB/s; or unlimited), the master behind --uplink,"
          + " run a wc job over a served file with each of --link-strategies, print the time and each link's"
          + " measured bandwidth beside its rate, and remove it all. E.g. --links 80mbit,40mbit,20mbit,10mbit")
  List<String> links;

  @Option(names = "--uplink", paramLabel = "RATE", defaultValue = "unlimited",
      description = "Links: the master's uplink, everything it sends (default: ${DEFAULT-VALUE}).")
  String uplink;

  @Option(names = "--link-speeds", paramLabel = "BYTES/s,...", split = ",",
      description = "Links: each worker's compute speed in bytes (wc's unit) per second, as worker --max-speed; one"
          + " value for all or one per link (default: as fast as it counts).")
  List<Double> speeds;

  @Option(names = "--link-strategies", paramLabel = "NAME,...", split = ",", defaultValue = "auto",
      description = "Links: the job's strategies, each run in turn (default: ${DEFAULT-VALUE}).")
  List<String> strategies;

  @Option(names = "--link-file-mib", defaultValue = "64",
      description = "Links: the served file's size in MiB (default: ${DEFAULT-VALUE}).")
  double fileMib;

  @Option(names = "--link-chunk-units", defaultValue = "0",
      description = "Links: the job's chunk-units (default 0: the strategy's).")
  long chunkUnits;

  @Option(names = "--link-repeat", defaultValue = "1",
      description = "Links: runs of each strategy, interleaved (default: ${DEFAULT-VALUE}).")
  int repeat;

  @Option(names = "--link-concurrent-sends", defaultValue = "share", paramLabel = "share|fit|N",
      description = "Links: the master's --concurrent-sends (default: ${DEFAULT-VALUE}).")
  String concurrentSends;

  @Option(names = "--link-change", paramLabel = "SECONDS:wI:RATE",
      description = "Links: SECONDS after each run's job is submitted, shape worker I's link to RATE (back after"
          + " the run), and report how the master's estimate of it followed, transfer by transfer (e.g. 3:w1:20mbit).")
  String change;

  @Option(names = "--link-risks", paramLabel = "KAPPA,...", split = ",",
      description = "Links: each worker's linear risk per second (the papers' kappa: worker --interrupt linear:KAPPA,"
          + " its seed the run's repetition), one value for all or one per link, 0 for none. With any risk, the"
          + " workers are started again before each run, so that every strategy of a repetition meets the same"
          + " interruptions; the master keeps what it learned of them (default: no risk).")
  List<Double> risks;

  @Option(names = "--link-downtime", paramLabel = "SECONDS", defaultValue = "5",
      description = "Links: with --link-risks, the mean seconds an interrupted worker stays down (default:"
          + " ${DEFAULT-VALUE}).")
  double downtime;

  @Option(names = "--link-warmup",
      description = "Links: first run one job with self-scheduling, not counted, so that every counted run finds the"
          + " links, the speeds (and with --link-risks, some interruptions) measured.")
  boolean warmup;

  @Option(names = "--link-dir", paramLabel = "DIR",
      description = "Links: run in this folder and keep it (the master's and workers' logs, the served file);"
          + " default: a temporary folder, removed at the end.")
  java.nio.file.Path dir;

  /** Whether {@code --links} was given. */
  public boolean requested() {
    return links != null && !links.isEmpty();
  }

  /** The settings these options name; a bad value is refused in one line. */
  public LinksBench.Settings settings() {
    List<Rate> downlinks = new ArrayList<>();
    for (String l : links) {
      downlinks.add(Rate.parse(l));
    }
    List<Double> perWorker = perLink("--link-speeds", speeds, downlinks.size());
    for (double s : perWorker) {
      if (s < 0 || Double.isNaN(s) || Double.isInfinite(s)) {
        throw new IllegalArgumentException("--link-speeds must be positive bytes/s, got " + s);
      }
    }
    LinksBench.Interruptions interruptions = null;
    if (risks != null && risks.stream().anyMatch(k -> k != null && k != 0)) {
      List<Double> kappas = perLink("--link-risks", risks, downlinks.size());
      for (double k : kappas) {
        if (!(k >= 0) || !(k < 1)) {
          throw new IllegalArgumentException("--link-risks must be in [0, 1) per second, got " + k);
        }
      }
      if (!(downtime > 0) || Double.isInfinite(downtime)) {
        throw new IllegalArgumentException("--link-downtime must be positive seconds, got " + downtime);
      }
      interruptions = new LinksBench.Interruptions(kappas, downtime);
    }
    if (!(fileMib > 0) || fileMib > 64 * 1024) {
      throw new IllegalArgumentException("--link-file-mib must be in (0, 65536], got " + fileMib);
    }
    if (repeat < 1 || repeat > 100 || chunkUnits < 0) {
      throw new IllegalArgumentException("--link-repeat must be 1..100, --link-chunk-units not negative");
    }
    dev.gleaner.common.port.Sends.parse("--link-concurrent-sends", concurrentSends);
    String sends = concurrentSends.trim();
    return new LinksBench.Settings(Rate.parse(uplink), downlinks, perWorker, (long) (fileMib * (1 << 20)),
        List.copyOf(strategies), repeat, chunkUnits, sends, dir, change == null ? null : LinkChange.parse(change),
        interruptions, warmup);
  }

  /** One value for every link, or one per link; none: 0 for every link. */
  private static List<Double> perLink(String option, List<Double> values, int links) {
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < links; i++) {
      if (values == null || values.isEmpty()) {
        out.add(0.0);
      } else if (values.size() == 1 || values.size() == links) {
        out.add(values.get(values.size() == 1 ? 0 : i));
      } else {
        throw new IllegalArgumentException(option + " takes one value or one per link (" + links + "), not "
            + values.size());
      }
    }
    return out;
  }
}
