package dev.gleaner.deploy.bench.shares;

import picocli.CommandLine.Option;

/** The options of {@code gleaner bench --shares}, mixed into the bench command. */
public final class SharesOptions {
  @Option(names = "--shares",
      description = "Instead: the fair share on worker JVMs held to one speed each, on loopback (about 5 minutes):"
          + " client alice's job on every worker and bob's 10 s later (when bob's job holds half the workers, its"
          + " time against alone on half, both answers and the store checked); weights 3:1 between two owners; a"
          + " priority-5 job after a priority-0 one of the same owner; the forecasts of two owners' jobs against"
          + " their ends.")
  boolean shares;

  @Option(names = "--share-workers", defaultValue = "4",
      description = "Shares: worker JVMs (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--share-speed", defaultValue = "100000", paramLabel = "UNITS/s",
      description = "Shares: each worker's speed, as worker --max-speed (default: ${DEFAULT-VALUE}).")
  double speed;

  @Option(names = "--share-seconds", defaultValue = "60",
      description = "Shares: how long alice's job would take alone on every worker (default: ${DEFAULT-VALUE}).")
  double seconds;

  @Option(names = "--share-bob-seconds", defaultValue = "10",
      description = "Shares: how long bob's job would take alone on half the workers (default: ${DEFAULT-VALUE}).")
  double bobSeconds;

  public boolean requested() {
    return shares;
  }

  public SharesBench.Settings settings() {
    return new SharesBench.Settings(workers, speed, seconds, bobSeconds);
  }
}
