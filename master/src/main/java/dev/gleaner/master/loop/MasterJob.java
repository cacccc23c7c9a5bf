package dev.gleaner.master.loop;

import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.util.RangeSet;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.JobSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the master keeps of a job beside the controller's ledger: the spec, the workload, the input
 * it streams, and its end once it is stored. Confined to the control thread; the status reads it
 * there.
 */
public final class MasterJob {
  /** Characters of a rendered result kept in memory: the most a status shows of one job. */
  public static final int RESULT_KEPT = 64 * 1024;

  public final String id;
  public final JobSpec spec;
  public final Workload workload;
  /** The input streamed to workers, or null. */
  final FileInputSource input;
  public final long start;
  public final long end;
  public final long submittedAtMillis;
  /** What every Assign of this job shares (its id, workload and parameters), for the network to complete. */
  final Assign assignTemplate;
  /** How it ended, as stored (DONE, DONE_PARTIAL, CANCELLED, FAILED); null while it runs or its end is being written. */
  JobPhase ended;
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
  /** Units saved before it was submitted: the pieces of the job it resumes (its rate counts only its own). */
  long unitsBefore;
  /** The strategy of its last plan; null before the first. */
  String strategy;
  long finishedAtMillis;
  /** Its end, being written with its last pieces (see {@link Ending}); null otherwise. */
  CompletableFuture<Ending> ending;
  /** Its end (a failure) is being stored; it is told once it is. */
  boolean storingEnd;
  /** Pieces committed by this master (a bound on the size of an {@link Ending}). */
  int piecesCommitted;
  /** What waits for this job's end (status requests), run on the control thread when it ends. */
  final List<Runnable> onEnd = new ArrayList<>();
  /** For a job that ended at its deadline or was cancelled before this master started: what was not done. */
  RangeSet notDone = new RangeSet();

  MasterJob(String id, JobSpec spec, Workload workload, FileInputSource input, long start, long end,
      long submittedAtMillis) {
    this.id = id;
    this.spec = spec;
    this.workload = workload;
    this.input = input;
    this.start = start;
    this.end = end;
    this.submittedAtMillis = submittedAtMillis;
    this.assignTemplate = Assign.newBuilder().setJobId(id).setWorkload(workload.name())
        .putAllParams(spec.getParamsMap()).build();
  }

  public long units() {
    return end - start;
  }

  /** Units saved before it was submitted (the pieces of the job it resumes). */
  public long unitsBefore() {
    return unitsBefore;
  }

  /** How it ended, as stored; null while it runs (or its end is being written). */
  public JobPhase ended() {
    return ended;
  }

  /** Whether it still runs: not ended, its end not being written. */
  public boolean running() {
    return ended == null && ending == null && !storingEnd;
  }

  public String message() {
    return message;
  }

  public long finishedAtMillis() {
    return finishedAtMillis;
  }

  /** The rendered result's start, at most {@link #RESULT_KEPT} characters. */
  public String resultHead() {
    return resultHead;
  }

  /** Whether {@link #resultHead()} is the whole result. */
  public boolean resultWhole() {
    return resultWhole;
  }

  public long resultSize() {
    return resultSize;
  }

  /** For a job that ended before this master started: what was not done. */
  public RangeSet notDone() {
    return notDone;
  }

  /** Runs {@code r} on the control thread when the job ends (at once is the caller's business if it has). */
  public void onEnd(Runnable r) {
    onEnd.add(r);
  }

  public void forgetOnEnd(Runnable r) {
    onEnd.remove(r);
  }

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
