package dev.gleaner.master;

import io.netty.channel.Channel;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One connected worker. Identity and channel are fixed; the mutable fields are guarded by the
 * dispatcher's lock, except {@link #lastHeardNanos} which the connection's event loop writes.
 */
final class WorkerSession {
  final String workerId;
  final String sessionId;
  final String host;
  final int cores;
  final Set<String> workloads;
  final Channel channel;
  final Map<String, Double> speeds = new ConcurrentHashMap<>();
  volatile long lastHeardNanos;

  WorkerState state = WorkerState.READY;
  final Set<Chunk> running = new LinkedHashSet<>();
  long unitsDone;

  WorkerSession(String workerId, String sessionId, String host, int cores, List<String> workloads, Channel channel,
      long nowNanos) {
    this.workerId = workerId;
    this.sessionId = sessionId;
    this.host = host;
    this.cores = cores;
    this.workloads = Set.copyOf(workloads);
    this.channel = channel;
    this.lastHeardNanos = nowNanos;
  }

  /** Measured speed for a workload in units/s, or 1 per core when the worker has not reported one. */
  double speed(String workload) {
    Double s = speeds.get(workload);
    return s != null && s > 0 ? s : Math.max(1, cores);
  }

  @Override
  public String toString() {
    return workerId + "@" + host;
  }
}
