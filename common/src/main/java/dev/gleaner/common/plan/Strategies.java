package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The registry of plan strategies by name. */
public final class Strategies {
  /** The strategy a job gets when it names none: the one expecting most work for the platform. */
  public static final String DEFAULT = "auto";

  private static final Map<String, PlanStrategy> BY_NAME = new TreeMap<>();

  static {
    for (PlanStrategy s : List.of(new EqualSplitStrategy(), new ProportionalStrategy(), new SelfSchedulingStrategy(),
        new DistribStrategy(), new ReplicateStrategy(), new FifoStrategy(),
        new BandwidthCentricStrategy(), new ReverseOrderStrategy(), new AutoStrategy(false))) {
      BY_NAME.put(s.name(), s);
    }
  }

  private Strategies() {}

  /**
   * The strategy of that name.
   *
   * @throws IllegalArgumentException naming the known strategies
   */
  public static PlanStrategy byName(String name) {
    String key = name == null || name.isBlank() ? DEFAULT : name.trim().toLowerCase(Locale.ROOT);
    PlanStrategy s = BY_NAME.get(key);
    if (s == null) {
      throw new IllegalArgumentException("unknown strategy '" + name + "'; known: " + String.join(", ", BY_NAME.keySet()));
    }
    return s;
  }

  private static final PlanStrategy RUNTIME_AUTO = new AutoStrategy(true);

  /**
   * The strategy of that name as the runtime's controller uses it: the same, except that
   * {@code auto} chooses among the one-round plans only (see {@link AutoStrategy}).
   */
  public static PlanStrategy forRuntime(String name) {
    PlanStrategy s = byName(name);
    return s.name().equals("auto") ? RUNTIME_AUTO : s;
  }

  public static List<String> names() {
    return List.copyOf(BY_NAME.keySet());
  }

  /** A plan that gives worker i the next {@code sizes[i]} units, in one chunk each. */
  static Plan perWorker(String name, String reason, PlanRequest request, List<Worker> workers, long[] sizes, int checkpoints) {
    List<long[]> ranges = Cutter.cut(request.start(), request.end(), sizes, request.align());
    List<Assignment> order = new ArrayList<>();
    for (int i = 0; i < workers.size(); i++) {
      List<ChunkPlan> chunks = i < ranges.size()
          ? List.of(Cutter.chunk(ranges.get(i)[0], ranges.get(i)[1], checkpoints, request.align()))
          : List.of();
      order.add(new Assignment(workers.get(i).id(), chunks));
    }
    // cut() gives at most one range per size; alignment may leave the last workers without one
    return Plan.of(name, reason, order, List.of(), Timelines.singleRound(request.platform(), order, request.eps(), request.port()),
        request);
  }
}
