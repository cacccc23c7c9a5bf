package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.chaos.HostilePeer;
import dev.gleaner.deploy.chaos.HostilePeer.Attack;
import dev.gleaner.deploy.chaos.HostilePeer.Outcome;
import dev.gleaner.deploy.client.MasterClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hostile traffic of the bench against a master: the hostile connections of a run, shuffled and
 * bounded in number; then, on the clear-text master, idle connections beyond that bound
 * (saturation), and a flood of connections closed at once (churn).
 *
 * <p>Each hostile thread connects from its own loopback address (127.77.x.y; Linux routes all of
 * 127/8 to lo), so the master's per-address limit (16) is met only by the {@link Attack#PER_ADDRESS}
 * bursts, which each use an address of their own (127.78.x.y), and the real client and workers keep
 * 127.0.0.1. A fair semaphore of {@code concurrency} permits bounds the open hostile sockets (a burst
 * takes {@link HostilePeer#BURST}), below the master's 256 connections in the handshake, so the
 * real client is never refused for want of room.
 */
final class HostileTraffic {
  private final int concurrency;
  private final long seed;
  private final int churnSeconds;
  private final PrintWriter progress;

  HostileTraffic(int concurrency, long seed, int churnSeconds, PrintWriter progress) {
    this.concurrency = concurrency;
    this.seed = seed;
    this.churnSeconds = churnSeconds;
    this.progress = progress;
  }

  /** The hostile connections, shuffled, at most {@code concurrency} sockets open at once. */
  List<Outcome> attack(HostileMode mode, int connections, HostilePeer.Target target) throws InterruptedException {
    List<Attack> tasks = new ArrayList<>();
    for (Map.Entry<Attack, Double> e : mode.mix().entrySet()) {
      int n = (int) Math.round(connections * e.getValue());
      int size = e.getKey() == Attack.PER_ADDRESS ? HostilePeer.BURST : 1;
      for (int i = 0; i < n / size; i++) {
        tasks.add(e.getKey());
      }
    }
    Collections.shuffle(tasks, new Random(seed));
    ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    Semaphore open = new Semaphore(concurrency, true);
    AtomicInteger threads = new AtomicInteger();
    ThreadLocal<InetAddress> from = ThreadLocal.withInitial(() -> address(77, threads.getAndIncrement()));
    ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
      Thread t = new Thread(r, "hostile");
      t.setDaemon(true);
      return t;
    });
    AtomicInteger bursts = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    SplittableRandom root = new SplittableRandom(seed);
    for (Attack a : tasks) {
      SplittableRandom r = root.split();
      pool.execute(() -> {
        int permits = a == Attack.PER_ADDRESS ? Math.min(HostilePeer.BURST, concurrency) : 1;
        try {
          open.acquire(permits);
        } catch (InterruptedException e) {
          return;
        }
        try {
          InetAddress src = a == Attack.PER_ADDRESS ? address(78, bursts.getAndIncrement()) : from.get();
          outcomes.addAll(HostilePeer.run(a, target, src, r));
        } finally {
          open.release(permits);
          int d = done.incrementAndGet();
          if (d % 1000 == 0) {
            HostileBench.note(progress, "  %,d of %,d attacks done", d, tasks.size());
          }
        }
      });
    }
    pool.shutdown();
    if (!pool.awaitTermination(30, TimeUnit.MINUTES)) {
      pool.shutdownNow();
      throw new IllegalStateException("the hostile connections did not end within 30 minutes");
    }
    return new ArrayList<>(outcomes);
  }

  /**
   * Beyond the bound the attack keeps to: {@link #SATURATION_ADDRESSES} addresses times 15 idle
   * connections (under the per-address limit, over the 256 in all), and meanwhile one fresh login of
   * the real client. Measures what the master's total limit costs a real peer that is not yet logged in.
   */
  static Map<String, Object> saturate(HostileCluster c) {
    List<InetAddress> froms = new ArrayList<>();
    for (int a = 0; a < SATURATION_ADDRESSES; a++) {
      for (int k = 0; k < 15; k++) {
        froms.add(address(79, a));
      }
    }
    String[] probe = new String[1];
    List<String> labels = HostilePeer.hold(c.target(), froms, () -> {
      try (MasterClient client = c.client()) {
        client.status(null);
        probe[0] = "served";
      } catch (IOException | RuntimeException e) {
        probe[0] = "refused: " + e.getMessage();
      }
    });
    Map<String, Integer> outcomes = new TreeMap<>();
    labels.forEach(l -> outcomes.merge(l, 1, Integer::sum));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("idleConnections", froms.size());
    m.put("addresses", SATURATION_ADDRESSES);
    m.put("outcomes", outcomes);
    m.put("freshClientLogin", probe[0]);
    return m;
  }

  private static final int SATURATION_ADDRESSES = 20;

  /**
   * The cheapest hostile peer, as fast as {@link #CHURN_THREADS} threads can: connect and close at
   * once, for {@code churnSeconds}. Each such connection leaves the handshake (and the master's
   * limits) as it closes; the figures say what it costs the master's heap (live, after a full GC)
   * right after the flood and once the 30 s handshake limit has passed, and whether a fresh client
   * login is served after it.
   */
  Map<String, Object> churn(HostileCluster c, ProcessMemory memory) throws InterruptedException {
    HostileBench.note(progress, "churn: connect and close at once, %d threads, %d s ...", CHURN_THREADS, churnSeconds);
    memory.collect();
    long before = memory.heapUsedKiB();
    AtomicInteger made = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(churnSeconds);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < CHURN_THREADS; t++) {
      int block = 80 + t;
      Thread th = new Thread(() -> {
        for (int i = 0; System.nanoTime() < until; i++) {
          try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(address(block, i % 50_000), 0));
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), c.port()), 5000);
            made.incrementAndGet();
          } catch (IOException e) {
            failed.incrementAndGet();
          }
        }
      }, "churn-" + t);
      th.start();
      threads.add(th);
    }
    for (Thread th : threads) {
      th.join(TimeUnit.SECONDS.toMillis(churnSeconds + 60));
    }
    memory.collect();
    long right = memory.heapUsedKiB();
    long rss = memory.rssKiB();
    String login = c.freshLogin();
    HostileCluster.pause((HostilePeer.READ_SECONDS - 5) * 1000L);
    memory.collect();
    long later = memory.heapUsedKiB();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", churnSeconds);
    m.put("threads", CHURN_THREADS);
    m.put("connections", made.get());
    m.put("connectFailures", failed.get());
    m.put("heapBeforeMiB", HostileBench.mib(before));
    m.put("heapRightAfterMiB", HostileBench.mib(right));
    m.put("heap35sLaterMiB", HostileBench.mib(later));
    m.put("rssRightAfterMiB", HostileBench.mib(rss));
    m.put("freshClientLoginAfter", login);
    m.put("masterAlive", c.master().isAlive());
    return m;
  }

  private static final int CHURN_THREADS = 4;

  /** 127.B.x.y, the i-th address of block B (y from 1 to 250). */
  private static InetAddress address(int block, int i) {
    try {
      return InetAddress.getByAddress(new byte[] {127, (byte) block, (byte) (i / 250), (byte) (i % 250 + 1)});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
