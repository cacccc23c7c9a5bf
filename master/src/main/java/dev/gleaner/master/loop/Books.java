package dev.gleaner.master.loop;

import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.WorkerView;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.store.ProblemLog;
import dev.gleaner.master.store.Store;
import dev.gleaner.master.store.WorkerTable;
import dev.gleaner.protocol.Hello;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The master's books, beside the controller's state: its jobs as the master keeps them, the
 * connected workers' sessions, who is away and why, and the stores and meters the handlers write
 * to. One object the loop's handlers share, as the controller's decisions share its state;
 * confined to the control thread, except {@link #workloadOf} (read by the connections' threads)
 * and {@link #stopping}. The status reads it there, through the public accessors.
 */
public final class Books {
  /** What a risk prior weighs, in interruptions seen. */
  static final int PRIOR_WEIGHT = 10;

  final Controller controller;
  final Store store;
  final MasterMetrics metrics;
  final MasterClock clock;
  /** Store failures, a line per kind per 10 s at most: a full disk fails every write. */
  final ProblemLog storeProblems;
  /** Every job known, ended ones too, in the order they came. */
  final Map<String, MasterJob> jobs = new LinkedHashMap<>();
  /** The current session of each connected worker. */
  final Map<String, WorkerLink> links = new HashMap<>();
  /** Each session's Hello: what the worker is, to join the controller again when it comes back from away. */
  final Map<WorkerLink, Hello> hellos = new HashMap<>();
  /** Each session's row in the store's history, once written. */
  final Map<WorkerLink, CompletableFuture<Long>> sessionRows = new HashMap<>();
  /** Connected workers that take no work now (their owner's policy), by id: why, and when they expect to be back. */
  final Map<String, Away> away = new HashMap<>();
  /** Workers' histories from the store, read once at start; the estimator keeps them up to date. */
  final Map<String, WorkerTable.History> histories;
  /** Each running job's workload, for the connections' threads to check results before the loop sees them. */
  final Map<String, Workload> workloadOf = new ConcurrentHashMap<>();
  /** Jobs a piece of which commits in the current pass. */
  final Set<MasterJob> committing = new LinkedHashSet<>();
  /** The risk prior's mean time up (0: none). */
  double expectedUpSeconds;
  /** The outages' prior (see {@link ControlLoop#expectDown}), 0 for none. */
  double expectedDownSeconds;
  /** The relays logged in (safe from any thread). */
  final Relays relays = new Relays();
  /** Where a batch's input streams are queued together (the master's port, once it has one). */
  volatile StreamBatch streamBatch = StreamBatch.NONE;
  /** Set when the master stops (by any thread): sessions closing then are not workers lost. */
  volatile boolean stopping;

  Books(Controller controller, Store store, MasterMetrics metrics, MasterClock clock, ProblemLog storeProblems,
      Map<String, WorkerTable.History> histories) {
    this.controller = controller;
    this.store = store;
    this.metrics = metrics;
    this.clock = clock;
    this.storeProblems = storeProblems;
    this.histories = histories;
  }

  /** Why a connected worker takes no work, and when it expects to be back (epoch ms; 0: unknown). */
  public record Away(String reason, long backAtMillis) {}

  public Controller controller() {
    return controller;
  }

  public MasterClock clock() {
    return clock;
  }

  /** Every job known, in the order they came (read only). */
  public Map<String, MasterJob> jobs() {
    return Collections.unmodifiableMap(jobs);
  }

  /** The connected workers' sessions, by worker id (read only). */
  public Map<String, WorkerLink> links() {
    return Collections.unmodifiableMap(links);
  }

  /** The relays logged in now. */
  public Relays relays() {
    return relays;
  }

  /** The connected workers that take no work now, by id (read only). */
  public Map<String, Away> away() {
    return Collections.unmodifiableMap(away);
  }

  /** Interruptions of each worker's history that are the risk prior's, not seen (0 without one). */
  int priorInterruptions() {
    return expectedUpSeconds > 0 ? PRIOR_WEIGHT : 0;
  }

  /** The interruptions seen of a worker: its risk's, less the prior's. */
  public long seenInterruptions(WorkerView w) {
    return Math.max(0, w.risk().interruptions() - priorInterruptions());
  }
}
