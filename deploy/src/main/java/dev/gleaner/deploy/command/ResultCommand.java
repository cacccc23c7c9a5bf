package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.TextSink;
import dev.gleaner.protocol.JobStatus;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gleaner result JOB [-o FILE]}: the whole result of an ended job, streamed. */
@Command(name = "result", mixinStandardHelpOptions = true,
    description = {"Print the whole result of a job that has ended, however large (status shows only its start).",
        "A result that is not the whole job's (its deadline came first, or it was cancelled) is followed on stdout"
            + " by a line that starts with `# partial result` and names the units not done (with -o, that line"
            + " alone is on stdout).",
        "Exit status: 0 DONE, 1 the command failed (unknown job, one still running or failed), 3 CANCELLED,"
            + " 5 DONE_PARTIAL."})
public final class ResultCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job id.")
  String job;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the result to FILE instead of stdout.")
  Path output;

  @Override
  public Integer call() throws Exception {
    try (MasterClient c = client.connect("`gleaner result`")) {
      // its state first: a result that is not the whole job's says so (the master refuses one of a job
      // that has not ended, or failed, with its own line)
      var reply = c.status(job, 0);
      JobStatus j = reply.getJobsCount() == 0 ? null : reply.getJobs(0);
      if (output != null) {
        Path partial = output.resolveSibling(output.getFileName() + ".part");
        long bytes;
        try (OutputStream out = Files.newOutputStream(partial)) {
          bytes = c.result(job, out);
        }
        // a result cut short by a lost connection never takes the file's name
        Files.move(partial, output, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        System.err.println("wrote " + bytes + " bytes of the result of " + job + " to " + output);
      } else {
        try (TextSink out = new TextSink(spec.commandLine().getOut())) {
          c.result(job, out);
        }
        spec.commandLine().getOut().println();
      }
      String partial = j == null ? null : JobExit.partialMarker(j);
      if (partial != null) {
        spec.commandLine().getOut().println(partial);
      }
      return j == null ? JobExit.DONE : JobExit.of(j.getState());
    }
  }
}
