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
  /**
   * The rendered result's start (all of it when short): what a status shows. A long result is not
   * kept in memory; `gleaner result` renders it again from the store.
   */
  String resultHead = "";
  /** Whether {@link #resultHead} is the whole result. */
  boolean resultWhole = true;
  /** The rendered result's size in UTF-8 bytes. */
  long resultSize;
  String message = "";
  /** Its latest forecast while it runs, or null (see {@link Forecasts}). */
  dev.gleaner.protocol.Forecast forecast;
  /** The strategy of its last plan; null before the first. */
  String strategy;
  long finishedAtMillis;
  /** Its end, being written with its last pieces (see {@link Ending}); null otherwise. */
  java.util.concurrent.CompletableFuture<Ending> ending;
  /** Pieces committed by this master (a bound on the size of an {@link Ending}). */
  int piecesCommitted;
  /** Status requests waiting for this job's end (run on the loop's thread when it ends). */
  final java.util.List<Runnable> onEnd = new java.util.ArrayList<>();
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

  /** Characters of a result kept in memory: the most a status shows. */
  static final int RESULT_KEPT = StatusReport.RESULT_SHOWN_ONE;

  /** Keeps the rendered result's start and size; the text itself is left to the collector. */
  void result(String text) {
    resultWhole = text.length() <= RESULT_KEPT;
    resultHead = resultWhole ? text : text.substring(0, RESULT_KEPT);
    resultSize = utf8Size(text);
  }

  /** The text's size in UTF-8 bytes, counted without encoding a copy of it (a result may be hundreds of MB). */
  private static long utf8Size(String text) {
    long n = 0;
    for (int i = 0; i < text.length(); i++) {
      char ch = text.charAt(i);
      if (ch < 0x80) {
        n += 1;
      } else if (ch < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(ch) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        n += 3;
      }
    }
    return n;
  }
}
