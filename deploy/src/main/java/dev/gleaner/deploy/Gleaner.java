package dev.gleaner.deploy;

import dev.gleaner.deploy.command.CancelCommand;
import dev.gleaner.deploy.command.DrainCommand;
import dev.gleaner.deploy.command.ShareCommand;
import dev.gleaner.deploy.command.ForgetCommand;
import dev.gleaner.deploy.command.InitCommand;
import dev.gleaner.deploy.command.JobsCommand;
import dev.gleaner.deploy.command.MasterCommand;
import dev.gleaner.deploy.command.RelayCommand;
import dev.gleaner.deploy.command.ResultCommand;
import dev.gleaner.deploy.command.StatusCommand;
import dev.gleaner.deploy.command.SubmitCommand;
import dev.gleaner.deploy.command.TokenCommand;
import dev.gleaner.deploy.command.WaitCommand;
import dev.gleaner.deploy.command.WorkerCommand;
import dev.gleaner.deploy.command.cluster.ClusterCommand;
import dev.gleaner.deploy.command.cluster.SlurmCommand;
import dev.gleaner.deploy.command.tool.BenchCommand;
import dev.gleaner.deploy.command.tool.ChaosCommand;
import dev.gleaner.deploy.command.tool.DemoCommand;
import dev.gleaner.deploy.command.tool.PlanCommand;
import dev.gleaner.deploy.command.tool.RecoveryCommand;
import dev.gleaner.deploy.command.tool.ReplayCommand;
import dev.gleaner.deploy.command.tool.SimulateCommand;
import dev.gleaner.deploy.command.tool.TraceCommand;
import dev.gleaner.deploy.format.WholeNumber;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code gleaner} command: one entry point, one subcommand per task.
 *
 * <p>A command line that names its subcommand first builds that one alone: picocli reads a command's
 * options by reflection, which loads the types of its fields and runs its static initialisers, so
 * building all of them would load the master, the worker and the logging for a {@code gleaner status}.
 * {@code --version} alone builds none; anything else ({@code --help}, {@code help}, a name that is no
 * command, completion) builds them all.
 */
@Command(name = "gleaner", mixinStandardHelpOptions = true, versionProvider = Gleaner.Version.class,
    description = {"Share a divisible workload across computers that differ and may be taken away at any moment.", ""},
    footer = {"", "Start with `gleaner demo`; `gleaner <command> --help` explains each command."})
public final class Gleaner implements Runnable {
  /** The subcommands, in the order {@code gleaner --help} lists them. */
  static final List<String> COMMANDS = List.of("init", "token", "master", "worker", "relay", "submit", "status", "jobs",
      "wait", "cancel", "result", "forget", "drain", "share", "demo", "bench", "chaos", "recovery", "plan", "simulate",
      "trace", "replay", "slurm", "cluster");

  /** The class of subcommand {@code name}, or null; a switch, so that only the named one is loaded. */
  static Class<?> command(String name) {
    return switch (name) {
      case "init" -> InitCommand.class;
      case "token" -> TokenCommand.class;
      case "master" -> MasterCommand.class;
      case "worker" -> WorkerCommand.class;
      case "relay" -> RelayCommand.class;
      case "submit" -> SubmitCommand.class;
      case "status" -> StatusCommand.class;
      case "jobs" -> JobsCommand.class;
      case "wait" -> WaitCommand.class;
      case "cancel" -> CancelCommand.class;
      case "result" -> ResultCommand.class;
      case "forget" -> ForgetCommand.class;
      case "drain" -> DrainCommand.class;
      case "share" -> ShareCommand.class;
      case "demo" -> DemoCommand.class;
      case "bench" -> BenchCommand.class;
      case "chaos" -> ChaosCommand.class;
      case "recovery" -> RecoveryCommand.class;
      case "plan" -> PlanCommand.class;
      case "simulate" -> SimulateCommand.class;
      case "trace" -> TraceCommand.class;
      case "replay" -> ReplayCommand.class;
      case "slurm" -> SlurmCommand.class;
      case "cluster" -> ClusterCommand.class;
      default -> null;
    };
  }

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
    // only the named subcommand, when the line names one (see the class comment)
    Class<?> named = args.length == 0 ? null : command(args[0]);
    boolean none = named == null && args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"));
    CommandLine cl = build(out, err, named == null ? (none ? List.of() : COMMANDS) : List.of(args[0]));
    return cl.execute(args);
  }

  /** Every command, for the reference page and {@code --help}; the settings {@link #run} uses. */
  static CommandLine commandLine(java.io.PrintWriter out, java.io.PrintWriter err) {
    return build(out, err, COMMANDS);
  }

  private static CommandLine build(java.io.PrintWriter out, java.io.PrintWriter err, List<String> names) {
    CommandLine cl = new CommandLine(new Gleaner());
    // before the settings below: picocli applies them to the subcommands there are at that moment
    for (String name : names) {
      cl.addSubcommand(name, command(name));
    }
    if (names.size() > 1) {
      cl.addSubcommand(CommandLine.HelpCommand.class);
      cl.addSubcommand(picocli.AutoComplete.GenerateCompletion.class);
    }
    cl.setOut(out);
    cl.setErr(err);
    // counts are whole numbers everywhere, in the forms job files take too (2e6)
    cl.registerConverter(Long.class, new WholeNumber());
    cl.registerConverter(Long.TYPE, new WholeNumber());
    cl.setParameterExceptionHandler((e, arguments) -> {
      // one line saying what is wrong, one saying where the options are; exit 2 as picocli does
      String name = e.getCommandLine().getCommandSpec().qualifiedName();
      String what = e.getMessage();
      String guess = "";
      if (e instanceof CommandLine.UnmatchedArgumentException u) {
        // name the mistyped options alone: picocli lists the words after one too (a job file, an
        // address), which are no options
        List<String> options = u.getUnmatched().stream().filter(a -> a.startsWith("-")).toList();
        List<String> words = u.getUnmatched().stream().filter(a -> !a.startsWith("-")).toList();
        if (!options.isEmpty()) {
          what = "unknown option" + (options.size() > 1 ? "s " : " ") + quoted(options)
              + (words.isEmpty() ? "" : " (" + quoted(words) + " after it went unread)");
        }
        if (!u.getSuggestions().isEmpty()) {
          // picocli's nearest names to the mistyped one
          guess = "; did you mean " + String.join(" or ", u.getSuggestions().subList(0, Math.min(3,
              u.getSuggestions().size()))) + "?";
        }
      }
      e.getCommandLine().getErr().println(name + ": " + what + guess);
      e.getCommandLine().getErr().println("see `" + name + " --help`");
      return 2;
    });
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      // one clear line for the person; the cause goes to the log at debug level
      commandLine.getErr().println("gleaner: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      org.slf4j.LoggerFactory.getLogger(Gleaner.class).debug("command failed", e);
      return 1;
    });
    return cl;
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

  /** 'a', 'b' and 'c'. */
  private static String quoted(List<String> words) {
    List<String> q = words.stream().map(w -> "'" + w + "'").toList();
    return q.size() == 1 ? q.get(0) : String.join(", ", q.subList(0, q.size() - 1)) + " and " + q.get(q.size() - 1);
  }
}
