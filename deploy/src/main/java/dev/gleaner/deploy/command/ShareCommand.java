package dev.gleaner.deploy.command;

import dev.gleaner.common.control.Controller;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gleaner share OWNER WEIGHT}: an owner's weight in the fair share of the workers. */
@Command(name = "share", mixinStandardHelpOptions = true,
    header = "Set an owner's weight in the fair share of the workers (an operator's command).",
    description = {"Owners with jobs running share the workers in proportion to their weights, 1 unless set here:"
        + " with weights 3 and 1, two busy owners get 3 workers to 1. A share is a target, not a partition: what an"
        + " owner does not use goes to the others, and is taken back when the owner has work again, by cutting"
        + " chunks of the others where their workers are (what they computed is kept). Among one owner's jobs, a"
        + " higher priority goes first (the job file's `priority:`).",
        "The weight is stored: a restarted master keeps it. `gleaner status` shows the weights set.",
        "Only an operator may set shares (`gleaner token operator NAME` makes an operator's token)."})
public final class ShareCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "OWNER",
      description = "The owner as `gleaner jobs` shows it: client:NAME or operator:NAME (`alice` means client:alice).")
  String owner;

  @Parameters(index = "1", paramLabel = "WEIGHT",
      description = "Its weight, from 0.001 to 1000000 (0: back to the default, 1).")
  double weight;

  @Option(names = "--json", description = "Print one JSON document (every weight set) on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    String who = owner.contains(":") ? owner : "client:" + owner;
    String refusal = Controller.shareRefusal(weight);
    if (refusal != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "WEIGHT: " + refusal);
    }
    Map<String, Double> all;
    try (MasterClient c = client.connect("`gleaner share`")) {
      all = c.share(who, weight);
    }
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("owner", who);
      m.put("weight", weight == 0 ? 1.0 : weight);
      m.put("shares", all);
      spec.commandLine().getOut().println(StatusView.json(m));
    } else {
      spec.commandLine().getOut().println(String.format(Locale.ROOT, "%s now weighs %s in the fair share of the"
          + " workers%s", who, StatusView.human(weight == 0 ? 1 : weight), all.isEmpty() ? " (as every owner)"
          : "; weights set: " + all.entrySet().stream().map(e -> e.getKey() + " " + StatusView.human(e.getValue()))
              .reduce((a, b) -> a + ", " + b).orElse("") + " (any other owner 1)"));
    }
    return 0;
  }
}
