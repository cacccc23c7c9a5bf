package dev.gleaner.common.workload;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;

/** The workloads a master or worker knows: the built-ins, plus plugins found on a class loader. */
public final class Workloads {
  private final Map<String, Workload> byName = new TreeMap<>();

  private Workloads(Collection<Workload> workloads) {
    for (Workload w : workloads) {
      Workload previous = byName.putIfAbsent(w.name(), w);
      if (previous != null && previous.getClass() != w.getClass()) {
        throw new IllegalArgumentException("two workloads are named '" + w.name() + "': "
            + previous.getClass().getName() + " and " + w.getClass().getName());
      }
    }
  }

  /** The built-ins ({@code primes}, {@code grep}, {@code wc}) plus {@code extra}. */
  public static Workloads of(Workload... extra) {
    List<Workload> all = new ArrayList<>(List.of(new PrimesWorkload(), new GrepWorkload(), new WcWorkload()));
    all.addAll(List.of(extra));
    return new Workloads(all);
  }

  /** The built-ins, {@code extra}, and every {@link Workload} service visible to {@code plugins}. */
  public static Workloads withPlugins(ClassLoader plugins, Workload... extra) {
    List<Workload> all = new ArrayList<>(List.of(new PrimesWorkload(), new GrepWorkload(), new WcWorkload()));
    all.addAll(List.of(extra));
    for (Workload w : ServiceLoader.load(Workload.class, plugins)) {
      all.add(w);
    }
    return new Workloads(all);
  }

  /**
   * The workload of that name.
   *
   * @throws IllegalArgumentException naming the known workloads
   */
  public Workload get(String name) {
    Workload w = byName.get(name);
    if (w == null) {
      throw new IllegalArgumentException("unknown workload '" + name + "'; known: " + String.join(", ", byName.keySet()));
    }
    return w;
  }

  public boolean has(String name) {
    return byName.containsKey(name);
  }

  public List<String> names() {
    return List.copyOf(byName.keySet());
  }

  public Collection<Workload> all() {
    return List.copyOf(byName.values());
  }
}
