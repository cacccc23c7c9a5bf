package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gleaner drain WORKER}: asks a connected worker to leave. */
@Command(name = "drain", mixinStandardHelpOptions = true,
    header = "Ask a connected worker to leave: it drains and exits.",
    description = {"Ask a connected worker to leave: it reports what it has computed, waits for the master to store"
        + " it, says goodbye and exits (as on SIGTERM). Its unfinished work goes to the others.",
        "A worker under systemd (Restart=always) starts again: stop the unit on its computer to keep it away."})
public final class DrainCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "WORKER", description = "The worker's id (as `gleaner status` lists it).")
  String worker;

  @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the worker's and the master's logs.")
  String reason = "";

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    try (MasterClient c = client.connect("`gleaner drain`")) {
      c.drain(worker, reason);
    }
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("worker", worker);
      m.put("asked", true);
      spec.commandLine().getOut().println(StatusView.json(m));
    } else {
      spec.commandLine().getOut().println("worker " + worker + " was asked to leave; it drains and exits");
    }
    return 0;
  }
}
