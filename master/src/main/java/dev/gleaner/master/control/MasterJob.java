package dev.gleaner.master.control;

import dev.gleaner.common.workload.Workload;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.JobSpec;

/**
 * What the master keeps of a job beside the controller's ledger: the spec, the workload, the input
 * it streams, and the result once it is stored. Confined to the control loop's thread.
 */
final class MasterJob {
  final String id;
  final JobSpec spec;
  final Workload workload;
  /** The input streamed to workers, or null. */
  final FileInputSource input;
  final long start;
  final long end;
  final long submittedAtMillis;
  /** What every assignment of this job shares (job id, workload, parameters). */
  final Assign assignPrototype;
  /** The stored outcome (DONE, DONE_PARTIAL, FAILED), or null while it runs or is being merged. */
  String state;
  String resultText = "";
  /** The rendered result's size in UTF-8 bytes, and the text it was counted for. */
  private long resultSize;
  private String sizedText;
  String message = "";
  long finishedAtMillis;
  /** For a job that ended at its deadline before this master started: what was not done. */
  dev.gleaner.common.util.RangeSet notDone = new dev.gleaner.common.util.RangeSet();

  MasterJob(String id, JobSpec spec, Workload workload, FileInputSource input, long start, long end,
      long submittedAtMillis) {
    this.id = id;
    this.spec = spec;
    this.workload = workload;
    this.input = input;
    this.start = start;
    this.end = end;
    this.submittedAtMillis = submittedAtMillis;
    this.assignPrototype = Assign.newBuilder().setJobId(id).setWorkload(workload.name())
        .putAllParams(spec.getParamsMap()).build();
  }

  long units() {
    return end - start;
  }

  /** The rendered result as UTF-8 bytes (made for each request: results are streamed rarely). */
  byte[] resultBytes() {
    return resultText.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** The rendered result's size in UTF-8 bytes, counted once per result. */
  long resultSize() {
    if (sizedText != resultText) {
      resultSize = resultText.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
      sizedText = resultText;
    }
    return resultSize;
  }
}
