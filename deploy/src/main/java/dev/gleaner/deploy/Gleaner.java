package dev.gleaner.deploy;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code gleaner} command: one entry point, one subcommand per task. */
@Command(name = "gleaner", mixinStandardHelpOptions = true, versionProvider = Gleaner.Version.class,
    description = {"Share a divisible workload across computers that differ and may be taken away at any moment.", ""},
    subcommands = {InitCommand.class, TokenCommand.class, MasterCommand.class, WorkerCommand.class, SubmitCommand.class,
        StatusCommand.class, JobsCommand.class, WaitCommand.class,
        CancelCommand.class, ResultCommand.class, ForgetCommand.class, DrainCommand.class, DemoCommand.class, BenchCommand.class,
        ChaosCommand.class, RecoveryCommand.class, PlanCommand.class, SimulateCommand.class, TraceCommand.class,
        ReplayCommand.class, ClusterCommand.class,
        CommandLine.HelpCommand.class, picocli.AutoComplete.GenerateCompletion.class},
    footer = {"", "Start with `gleaner demo`; `gleaner <command> --help` explains each command."})
public final class Gleaner implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (0 success, 1 failure, 2 usage error). */
  public static int run(String... args) {
    return run(new java.io.PrintWriter(System.out, true), new java.io.PrintWriter(System.err, true), args);
  }

  /** Runs the command line with its output and errors going to the given writers. */
  public static int run(java.io.PrintWriter out, java.io.PrintWriter err, String... args) {
    CommandLine cl = new CommandLine(new Gleaner());
    cl.setOut(out);
    cl.setErr(err);
    // counts are whole numbers everywhere, in the forms job files take too (2e6)
    cl.registerConverter(Long.class, new WholeNumber());
    cl.registerConverter(Long.TYPE, new WholeNumber());
    cl.setParameterExceptionHandler((e, arguments) -> {
      // one line saying what is wrong, one saying where the options are; exit 2 as picocli does
      String name = e.getCommandLine().getCommandSpec().qualifiedName();
      e.getCommandLine().getErr().println(name + ": " + e.getMessage());
      e.getCommandLine().getErr().println("see `" + name + " --help`");
      return 2;
    });
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      // one clear line for the person; the cause goes to the log at debug level
      commandLine.getErr().println("gleaner: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      org.slf4j.LoggerFactory.getLogger(Gleaner.class).debug("command failed", e);
      return 1;
    });
    return cl.execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Gleaner.class.getPackage().getImplementationVersion();
      return new String[] {"gleaner " + (v == null ? "development build" : v)
          + ", protocol " + dev.gleaner.protocol.ProtocolVersion.CURRENT};
    }
  }
}
