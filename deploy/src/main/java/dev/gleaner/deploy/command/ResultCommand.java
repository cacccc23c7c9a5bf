package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
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
        "Exit status: 0 DONE, 1 the command failed (an unknown job, one still running, or one that FAILED and so has"
            + " no result), 3 CANCELLED, 5 DONE_PARTIAL."})
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
      // the master refuses the result of a job that has not ended, or failed, with its own line
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
        TextSink out = new TextSink(spec.commandLine().getOut());
        try (out) {
          c.result(job, out);
        }
        if (!out.endsLine()) {
          spec.commandLine().getOut().println();
        }
      }
      // then its state, which no longer changes: a result that is not the whole job's says so
      var reply = c.status(job, 0);
      if (reply.getJobsCount() == 0 || !StatusView.ended(reply.getJobs(0).getState())) {
        throw new IllegalStateException("the master no longer shows job " + job + " as ended after sending its result");
      }
      JobStatus j = reply.getJobs(0);
      String partial = JobExit.partialMarker(j);
      if (partial != null) {
        spec.commandLine().getOut().println(partial);
      }
      return JobExit.of(j.getState());
    }
  }
}
