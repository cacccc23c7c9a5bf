package dev.gleaner.deploy.cds;

import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.command.JobExit;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * The training run of {@link ClientArchive}: the client commands a person or a script runs most, each
 * in this JVM against the given master, so that the JVM's list of loaded classes is theirs. Exits 1,
 * naming the command, if any of them fails: an archive is made only from a run that went as in use.
 *
 * <p>Usage: {@code java -XX:DumpLoadedClassList=FILE -cp gleaner.jar dev.gleaner.deploy.cds.ClientTraining
 * HOST:PORT SECRET_FILE JOB_FILE}.
 */
public final class ClientTraining {
  private ClientTraining() {}

  public static void main(String[] args) {
    if (args.length != 3) {
      System.err.println("usage: ClientTraining HOST:PORT SECRET_FILE JOB_FILE");
      System.exit(2);
    }
    List<String> to = List.of("--master", args[0], "--secret-file", args[1]);
    run(List.of("--help"));
    run(List.of("--version"));
    run(List.of("submit", "--help"));
    String job = run(with(List.of("submit", "--detach"), to, List.of(args[2]))).strip();
    run(with(List.of("status"), to, List.of()));
    run(with(List.of("jobs"), to, List.of()));
    run(with(List.of("cancel", job), to, List.of()));
    // a cancel returns once it is recorded, the job ends after it (its workers' last reports): forget
    // only an ended job, as a script must
    run(with(List.of("wait", job), to, List.of()), JobExit.CANCELLED);
    run(with(List.of("forget", job), to, List.of()));
    System.exit(0);
  }

  private static List<String> with(List<String> command, List<String> options, List<String> rest) {
    List<String> all = new ArrayList<>(command);
    all.addAll(options);
    all.addAll(rest);
    return all;
  }

  /** Runs one command line; returns what it printed, or exits 1 if it failed. */
  private static String run(List<String> args) {
    return run(args, 0);
  }

  /** Runs one command line; returns what it printed, or exits 1 if its exit code is not {@code expected}. */
  private static String run(List<String> args, int expected) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Gleaner.run(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
    if (code != expected) {
      System.err.println("gleaner " + String.join(" ", args) + " exited " + code + ": " + err.toString().strip());
      System.exit(1);
    }
    return out.toString();
  }
}
