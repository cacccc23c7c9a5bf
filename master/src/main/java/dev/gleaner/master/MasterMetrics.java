package dev.gleaner.master;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** The master's meters: chunks, units, bytes, failures, heartbeat lag, commit latency. */
final class MasterMetrics {
  final Counter chunksAssigned;
  final Counter chunksCompleted;
  final Counter chunksRerouted;
  final Counter unitsCommitted;
  final Counter piecesDuplicate;
  final Counter bytesStreamed;
  final Counter workerFailures;
  final Counter protocolErrors;
  final Timer heartbeatLag;
  final Timer pieceCommit;

  MasterMetrics(MeterRegistry registry) {
    chunksAssigned = Counter.builder("gleaner.chunks.assigned").description("chunks handed to workers").register(registry);
    chunksCompleted = Counter.builder("gleaner.chunks.completed").description("chunks fully committed").register(registry);
    chunksRerouted = Counter.builder("gleaner.chunks.rerouted").description("unfinished chunks given back after a worker left").register(registry);
    unitsCommitted = Counter.builder("gleaner.units.committed").description("units in durable pieces").register(registry);
    piecesDuplicate = Counter.builder("gleaner.pieces.duplicate").description("pieces received again and ignored").register(registry);
    bytesStreamed = Counter.builder("gleaner.bytes.streamed").baseUnit("bytes").description("input bytes sent to workers").register(registry);
    workerFailures = Counter.builder("gleaner.workers.failures").description("workers declared down").register(registry);
    protocolErrors = Counter.builder("gleaner.protocol.errors").description("connections refused for a protocol error").register(registry);
    heartbeatLag = Timer.builder("gleaner.heartbeat.lag").description("time between heartbeats of a worker").register(registry);
    pieceCommit = Timer.builder("gleaner.piece.commit").description("time from receiving a piece to its durable commit").register(registry);
  }
}
