package dev.gleaner.master.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * The master's meters: chunks, units, bytes, failures, plans, splits, heartbeat lag, commit latency,
 * connections logging in.
 */
public final class MasterMetrics {
  public final Counter chunksAssigned;
  public final Counter chunksCompleted;
  public final Counter chunksRerouted;
  public final Counter unitsCommitted;
  public final Counter piecesDuplicate;
  public final Counter bytesStreamed;
  /** Input bytes relays sent to their workers from their own copies of the file, in place of the master. */
  public final Counter bytesFromRelays;
  public final Counter workerFailures;
  public final Counter workersVacated;
  public final Counter protocolErrors;
  public final Counter connectionsEvicted;
  public final Counter plans;
  public final Counter splits;
  public final Counter piecesDiscarded;
  public final Counter piecesChecked;
  public final Counter storeFailures;
  public final Counter checkMismatches;
  public final Timer heartbeatLag;
  public final Timer pieceCommit;
  /** One pass of the control loop's writes: its transaction and its fsync. */
  public final Timer storeCommit;
  /** How long each stream held the port beyond its bytes' own time ({@code SendPort#onHandover}). */
  public final Timer portHandover;
  /** A status request, from its arrival to its reply being ready to send (those waiting for a job's end left out). */
  public final Timer statusReply;

  /** Workers labelled in the per-worker series at most (a label value per worker: bounded). */
  public static final int MAX_LABELLED_WORKERS = 1000;

  private final MeterRegistry registry;
  private final MultiGauge workerUnits;
  private final MultiGauge workerSpeed;
  private final MultiGauge workerInterruptions;
  private final MultiGauge workerConnected;
  private boolean toldOfTheCap;
  /** Each labelled worker's latest figures, read by its series (on the control loop's thread only). */
  private final java.util.Map<String, java.util.concurrent.atomic.AtomicReference<WorkerFigures>> figures =
      new java.util.HashMap<>();

  /**
   * One worker's figures, for the series labelled with its id.
   *
   * @param unitsCommitted units of its pieces committed since the master started
   * @param unitsPerSecond its best measured speed (0 before a measure)
   * @param interruptions interruptions its risk rests on (seen, not a prior's)
   * @param connected whether it is logged in now
   */
  public record WorkerFigures(String id, double unitsCommitted, double unitsPerSecond, double interruptions,
      boolean connected) {}

  public MasterMetrics(MeterRegistry registry) {
    this.registry = registry;
    chunksAssigned = Counter.builder("gleaner.chunks.assigned").description("chunks handed to workers").register(registry);
    chunksCompleted = Counter.builder("gleaner.chunks.completed").description("chunks fully committed").register(registry);
    chunksRerouted = Counter.builder("gleaner.chunks.rerouted").description("unfinished chunks given back after a worker left").register(registry);
    unitsCommitted = Counter.builder("gleaner.units.committed").description("units in durable pieces").register(registry);
    piecesDuplicate = Counter.builder("gleaner.pieces.duplicate").description("pieces received again and ignored").register(registry);
    bytesStreamed = Counter.builder("gleaner.bytes.streamed").baseUnit("bytes").description("input bytes sent to workers").register(registry);
    bytesFromRelays = Counter.builder("gleaner.bytes.from.relays").baseUnit("bytes")
        .description("input bytes relays sent to their workers from their own copies").register(registry);
    workerFailures = Counter.builder("gleaner.workers.failures").description("workers declared down").register(registry);
    workersVacated = Counter.builder("gleaner.workers.vacated").description("times a worker's owner took it back (it vacated, connected)").register(registry);
    protocolErrors = Counter.builder("gleaner.protocol.errors").description("connections refused for a protocol error").register(registry);
    connectionsEvicted = Counter.builder("gleaner.connections.evicted")
        .description("connections in the handshake closed to make room for newer ones").register(registry);
    plans = Counter.builder("gleaner.plans").description("plans and re-plans made").register(registry);
    splits = Counter.builder("gleaner.chunks.split").description("running chunks whose tail went to an idle worker").register(registry);
    piecesDiscarded = Counter.builder("gleaner.pieces.discarded").description("pieces that could not count (cancelled copy, partial overlap)").register(registry);
    storeFailures = Counter.builder("gleaner.store.failures").description("pieces or chunks the store could not save (queued again)").register(registry);
    piecesChecked = Counter.builder("gleaner.pieces.checked").description("committed pieces computed again on another worker and compared").register(registry);
    checkMismatches = Counter.builder("gleaner.checks.mismatched").description("checks whose result differed from the one compared with").register(registry);
    heartbeatLag = Timer.builder("gleaner.heartbeat.lag").description("how late a worker's heartbeat came: its gap to the one before, past the heartbeat interval").register(registry);
    pieceCommit = Timer.builder("gleaner.piece.commit").description("time from receiving a piece to its durable commit").register(registry);
    statusReply = Timer.builder("gleaner.status.reply").description("time from a status request's arrival to its"
        + " reply being ready to send (requests that wait for a job's end are not counted)").register(registry);
    portHandover = Timer.builder("gleaner.port.handover").description("how long each input stream held the master's"
        + " port beyond its bytes' own time: the port's turn to it, its first bytes' way there and its worker's word's"
        + " way back (in one-port, the wire idles meanwhile)").register(registry);
    storeCommit = Timer.builder("gleaner.store.commit").description("time to write and commit one pass of the control loop's writes (one fsync)").register(registry);
    workerUnits = MultiGauge.builder("gleaner.worker.units.committed")
        .description("units of the worker's pieces committed since the master started").register(registry);
    workerSpeed = MultiGauge.builder("gleaner.worker.speed").baseUnit("units.per.second")
        .description("the worker's measured speed (its best workload)").register(registry);
    workerInterruptions = MultiGauge.builder("gleaner.worker.interruptions")
        .description("interruptions seen of the worker").register(registry);
    workerConnected = MultiGauge.builder("gleaner.worker.connected")
        .description("1 while the worker is logged in").register(registry);
  }

  /**
   * The per-worker series, replaced by these figures (a worker the master no longer knows leaves
   * them); the first {@link #MAX_LABELLED_WORKERS} by id only, so a huge pool cannot swamp the
   * scrape. Called on one thread.
   */
  public void workers(java.util.List<WorkerFigures> all) {
    java.util.List<WorkerFigures> ws = all;
    if (all.size() > MAX_LABELLED_WORKERS) {
      ws = all.stream().sorted(java.util.Comparator.comparing(WorkerFigures::id)).limit(MAX_LABELLED_WORKERS).toList();
      if (!toldOfTheCap) {
        toldOfTheCap = true;
        org.slf4j.LoggerFactory.getLogger(MasterMetrics.class).warn("{} workers: the per-worker series of /metrics"
            + " label the first {} by id only", all.size(), MAX_LABELLED_WORKERS);
      }
    }
    // each worker's series reads its holder, which only changes value: a scrape meanwhile sees every series
    java.util.Map<String, java.util.concurrent.atomic.AtomicReference<WorkerFigures>> now = new java.util.HashMap<>();
    for (WorkerFigures w : ws) {
      java.util.concurrent.atomic.AtomicReference<WorkerFigures> h = figures.get(w.id());
      if (h == null) {
        h = new java.util.concurrent.atomic.AtomicReference<>();
      }
      h.set(w);
      now.put(w.id(), h);
    }
    figures.clear();
    figures.putAll(now);
    workerUnits.register(rows(WorkerFigures::unitsCommitted), false);
    workerSpeed.register(rows(WorkerFigures::unitsPerSecond), false);
    workerInterruptions.register(rows(WorkerFigures::interruptions), false);
    workerConnected.register(rows(w -> w.connected() ? 1 : 0), false);
  }

  private java.util.List<MultiGauge.Row<?>> rows(java.util.function.ToDoubleFunction<WorkerFigures> f) {
    java.util.List<MultiGauge.Row<?>> out = new java.util.ArrayList<>(figures.size());
    for (java.util.Map.Entry<String, java.util.concurrent.atomic.AtomicReference<WorkerFigures>> e : figures.entrySet()) {
      out.add(MultiGauge.Row.of(Tags.of("worker", e.getKey()), e.getValue(), h -> f.applyAsDouble(h.get())));
    }
    return out;
  }

  /** Gauges the workers whose result over one frame waits for memory to be joined in. */
  public void resultsWaiting(java.util.function.IntSupplier waiting) {
    io.micrometer.core.instrument.Gauge.builder("gleaner.results.waiting", waiting, w -> w.getAsInt())
        .strongReference(true).description("workers whose result over one frame waits for memory to be joined in")
        .register(registry);
  }

  /**
   * Gauges what the master can send, as its port learns it ({@code egress}, bytes/s), and whether that
   * is a measure ({@code bound}: streams were seen sharing it) or a floor (the most it sent).
   */
  public void egress(java.util.function.DoubleSupplier egress, java.util.function.BooleanSupplier bound) {
    io.micrometer.core.instrument.Gauge.builder("gleaner.egress", egress, e -> e.getAsDouble()).strongReference(true)
        .baseUnit("bytes/s").description("what this master can send, learned from its transfers: measured where"
            + " streams shared it, else the most it sent (see gleaner.egress.bound)").register(registry);
    io.micrometer.core.instrument.Gauge.builder("gleaner.egress.bound", bound, b -> b.getAsBoolean() ? 1 : 0)
        .strongReference(true).description("1 once streams were seen to share the egress (gleaner.egress is then a"
            + " measure, else a floor)").register(registry);
  }

  /** Gauges the connections in the handshake, as {@code waiting} counts them. */
  public void loggingIn(java.util.function.IntSupplier waiting) {
    // a strong reference: the supplier (a method reference made for this call) has no other holder,
    // and a weakly held one is collected and the gauge reads NaN
    io.micrometer.core.instrument.Gauge.builder("gleaner.connections.logging.in", waiting, w -> w.getAsInt())
        .strongReference(true).description("connections in the handshake").register(registry);
  }
}
