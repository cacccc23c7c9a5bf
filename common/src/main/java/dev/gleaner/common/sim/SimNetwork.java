package dev.gleaner.common.sim;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.port.Sends;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The simulated master's network: its egress and how its port sends, as {@code gleaner master
 * --concurrent-sends} says it.
 *
 * @param egress what the master can send, bytes/s ({@link Double#POSITIVE_INFINITY}: no limit but the links)
 * @param sends a code of {@link Sends}: share, every stream at once, sharing the egress max-min fairly as
 *     TCP flows behind one bottleneck do; fit, the streams whose links fit together in the egress, in the
 *     plan's order; n at least 1, n links at a time (1 with no egress: the papers' one port)
 * @param linksKnown whether the master has measured every worker's link before the job (a master that
 *     ran a job across them already): its first plan is then made with them, without probe chunks
 * @param paths for a worker reached through other nodes (relays, or workers that forward: paper 002's
 *     tree), the links its input crosses above its own, nearest first; each is shared by every stream
 *     that crosses it. A worker not named hangs off the master's port directly.
 * @param egressLearned whether the master learns its egress as it sends, as a fresh master does (the
 *     runtime's {@link dev.gleaner.common.port.EgressEstimator}, fed as the runtime's port feeds it);
 *     else it knows it from the start, and plans with it
 * @param handover seconds a stream holds its place at the port before its bytes flow: the runtime's port
 *     keeps a stream on the wire until its worker's word that the last byte arrived has come back, and
 *     starts the next one then, so the wire idles for the word's way back, the master's turn to the next
 *     stream and that stream's first bytes' way there (a few milliseconds on the testbed: the master's
 *     {@code gleaner.port.handover}); 0, the papers' model, a stream starting the instant the one before
 *     ended
 * @param linkEstimates with its links known, what the master's estimator holds of a worker's link when
 *     the job starts, bytes/s, where that is not the link's rate: a real master plans with what it measured
 *     (a link measured 3% low under a job's crowded start gets 3% too little of a plan), and so does the
 *     simulated one, while its link carries bytes at its own rate; a worker not named is known at its
 *     link's rate
 */
public record SimNetwork(double egress, int sends, boolean linksKnown, Map<String, List<Hop>> paths,
    boolean egressLearned, double handover, Map<String, Double> linkEstimates) {
  /** One stream at a time at its link's rate: the papers' model, the simulator's until there was a choice. */
  public static final SimNetwork ONE_PORT = new SimNetwork(Double.POSITIVE_INFINITY, 1);

  /**
   * A link between the master and a worker that is not the worker's own: an inner node's link from its
   * parent, which every stream to the workers under it crosses.
   *
   * @param id the inner node
   * @param bandwidth bytes/s
   */
  public record Hop(String id, double bandwidth) {
    public Hop {
      if (!(bandwidth > 0)) {
        throw new IllegalArgumentException("hop " + id + ": bandwidth must be positive, got " + bandwidth);
      }
    }
  }

  /** A master that learns the links as the job streams. */
  public SimNetwork(double egress, int sends) {
    this(egress, sends, false, Map.of(), false);
  }

  /** With no handover between streams (the papers' model). */
  public SimNetwork(double egress, int sends, boolean linksKnown, Map<String, List<Hop>> paths,
      boolean egressLearned) {
    this(egress, sends, linksKnown, paths, egressLearned, 0);
  }

  /** Each link, if known, known at its rate. */
  public SimNetwork(double egress, int sends, boolean linksKnown, Map<String, List<Hop>> paths,
      boolean egressLearned, double handover) {
    this(egress, sends, linksKnown, paths, egressLearned, handover, Map.of());
  }

  /** The same network, its links measured before the job, each at its rate. */
  public SimNetwork withLinksKnown() {
    return withLinksKnown(Map.of());
  }

  /**
   * The same network, its links measured before the job: those named as the master's estimator holds
   * them (bytes/s), the others at their rates.
   */
  public SimNetwork withLinksKnown(Map<String, Double> estimates) {
    return new SimNetwork(egress, sends, true, paths, egressLearned, handover, estimates);
  }

  /** The same network, each stream holding its place {@code seconds} at the port before its bytes flow. */
  public SimNetwork withHandover(double seconds) {
    return new SimNetwork(egress, sends, linksKnown, paths, egressLearned, seconds, linkEstimates);
  }

  /** What the master knows of the worker's link when the job starts, bytes/s, given its rate. */
  double knownLink(String workerId, double rate) {
    return linkEstimates.getOrDefault(workerId, rate);
  }

  /**
   * The same network, its master learning its egress from what it sends, as a master does on its first
   * job (it plans with what it learned so far).
   */
  public SimNetwork withEgressLearned() {
    return new SimNetwork(egress, sends, linksKnown, paths, true, handover, linkEstimates);
  }

  /**
   * The same master, its workers reached as the platform's tree says: each worker's input crosses the
   * links of the nodes above it (a relay's, or a forwarding worker's link from its parent), at their
   * bandwidth in bytes/s (the platform's units/s at one byte per unit, as {@code gleaner simulate} runs).
   */
  public SimNetwork through(Platform platform) {
    Map<String, Double> inner = new HashMap<>(platform.relays());
    for (Worker w : platform.workers()) {
      inner.put(w.id(), w.bandwidth());
    }
    java.util.Set<String> forwarding = new java.util.HashSet<>(platform.parents().values());
    Map<String, List<Hop>> p = new HashMap<>();
    for (Worker w : platform.workers()) {
      List<Hop> up = new ArrayList<>();
      if (forwarding.contains(w.id()) && Double.isFinite(w.bandwidth())) {
        // a sub-master's own input crosses its link too, beside what it forwards to its children
        up.add(new Hop(w.id(), w.bandwidth()));
      }
      for (String at = platform.parents().get(w.id()); at != null; at = platform.parents().get(at)) {
        double b = inner.get(at);
        if (Double.isFinite(b)) {
          up.add(new Hop(at, b));
        }
      }
      if (!up.isEmpty()) {
        p.put(w.id(), up);
      }
    }
    return new SimNetwork(egress, sends, linksKnown, p, egressLearned, handover, linkEstimates);
  }

  /**
   * The links above the worker's own, nearest first (none: it hangs off the master); for a worker
   * that forwards to others, its own link first, which its children's streams share.
   */
  List<Hop> path(String workerId) {
    return paths.getOrDefault(workerId, List.of());
  }

  public SimNetwork {
    Map<String, List<Hop>> copy = new HashMap<>();
    paths.forEach((w, up) -> copy.put(w, List.copyOf(up)));
    paths = Map.copyOf(copy);
    linkEstimates = Map.copyOf(Objects.requireNonNull(linkEstimates, "linkEstimates (none: an empty map)"));
    if (!(egress > 0)) {
      throw new IllegalArgumentException("the master's egress must be positive, got " + egress);
    }
    if (!Sends.valid(sends)) {
      throw new IllegalArgumentException("sends must be share (0), fit (-1) or at least 1, got " + sends);
    }
    if (!(handover >= 0) || Double.isInfinite(handover)) {
      throw new IllegalArgumentException("the handover must be a finite number of seconds, 0 or more, got " + handover);
    }
    if (!linkEstimates.isEmpty() && !linksKnown) {
      throw new IllegalArgumentException("estimates of the links are what a master knows of them: links not known, "
          + "none can be given, got " + linkEstimates);
    }
    linkEstimates.forEach((w, b) -> {
      if (!(b > 0) || Double.isInfinite(b)) {
        throw new IllegalArgumentException("worker " + w + "'s link estimate must be a positive number of bytes/s, got "
            + b);
      }
    });
  }

  /**
   * The port's rule as the simulated master plans with it from the start: its egress known (bytes/s),
   * or, if it learns it, as a master that sent nothing yet (no limit seen).
   */
  public PortRule planRule() {
    if (onePort()) {
      return PortRule.ONE_PORT;
    }
    if (egressLearned) {
      return Sends.planRule(sends, new PortRule(Integer.MAX_VALUE, Double.POSITIVE_INFINITY));
    }
    return new PortRule(sends >= 1 ? sends : Integer.MAX_VALUE, egress);
  }

  /**
   * Whether the simulator's first port, one stream at a time with no egress and no link shared,
   * models it.
   */
  boolean onePort() {
    return sends == 1 && Double.isInfinite(egress) && paths.isEmpty();
  }
}
