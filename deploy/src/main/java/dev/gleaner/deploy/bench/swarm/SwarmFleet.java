package dev.gleaner.deploy.bench.swarm;

import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Framing;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Many {@link SwarmWorker}s in this process, each from its own loopback address, on a few event-loop
 * threads and a few compute threads, and what happened to them: connection attempts, refusals by
 * code, when each was first welcomed, sessions the master closed after their Welcome, chunks
 * assigned and acknowledged.
 */
final class SwarmFleet implements AutoCloseable {
  private final InetSocketAddress master;
  private final byte[] secret;
  private final double speed;
  private final EventLoopGroup group;
  private final ExecutorService computers;
  private final ThreadLocal<PrimeSieve> sieves = ThreadLocal.withInitial(PrimeSieve::new);
  private final List<SwarmWorker> workers = new ArrayList<>();
  private volatile boolean stopping;

  final LongAdder attempts = new LongAdder();
  final LongAdder connectFailures = new LongAdder();
  /** Connections the master closed during the handshake without an Error (to make room). */
  final LongAdder closedBeforeWelcome = new LongAdder();
  final LongAdder assigned = new LongAdder();
  final LongAdder piecesSent = new LongAdder();
  /** Final pieces acknowledged: chunks done. */
  final LongAdder chunksAcked = new LongAdder();
  final AtomicInteger welcomed = new AtomicInteger();
  private final Map<String, LongAdder> refusals = new ConcurrentHashMap<>();
  /** Sessions the master closed after their Welcome, by worker id, with the code it gave (or none). */
  private final Map<String, String> closedAfterWelcome = new ConcurrentHashMap<>();
  private final Map<String, Long> firstWelcome = new ConcurrentHashMap<>();
  private final List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
  private volatile long lastAckNanos;

  SwarmFleet(InetSocketAddress master, byte[] secret, double speed, int ioThreads, int computeThreads) {
    this.master = master;
    this.secret = secret;
    this.speed = speed;
    this.group = new NioEventLoopGroup(ioThreads);
    this.computers = Executors.newFixedThreadPool(computeThreads, r -> {
      Thread t = new Thread(r, "swarm-compute");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * The loopback address of worker {@code i}: 127.a.b.c with b and c in 1..250, a from 10 on, so
   * that every worker of up to 2.4 million has its own.
   */
  static InetAddress address(int i) {
    byte[] b = {127, (byte) (10 + i / 62_500), (byte) (1 + (i / 250) % 250), (byte) (1 + i % 250)};
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new IllegalStateException("4 bytes are an address", e);
    }
  }

  /** Starts {@code n} workers connecting at once. */
  void start(int n, long seed) {
    for (int i = 0; i < n; i++) {
      workers.add(new SwarmWorker(this, i, address(i), seed * 1_000_003L + i));
    }
    for (SwarmWorker w : workers) {
      w.connect();
    }
  }

  Bootstrap bootstrap(InetAddress from) {
    return new Bootstrap().group(group).channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000)
        .localAddress(new InetSocketAddress(from, 0));
  }

  /** The pipeline of one worker's connection: the project's framing, then {@code handler}. */
  static ChannelInitializer<SocketChannel> pipeline(io.netty.channel.ChannelHandler handler) {
    return new ChannelInitializer<>() {
      @Override
      protected void initChannel(SocketChannel ch) {
        Framing.install(ch.pipeline(), Framing.DEFAULT_MAX_FRAME_BYTES);
        ch.pipeline().addLast(handler);
      }
    };
  }

  InetSocketAddress master() {
    return master;
  }

  EventLoopGroup group() {
    return group;
  }

  byte[] secret() {
    return secret;
  }

  double speed() {
    return speed;
  }

  PrimeSieve sieve() {
    return sieves.get();
  }

  /** Runs {@code task} on a compute thread; a failure is reported as a problem of the run. */
  void compute(Runnable task) {
    computers.execute(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        unexpected("counting primes failed: " + e);
      }
    });
  }

  boolean stopping() {
    return stopping;
  }

  /** From now on, closed connections are the bench's doing, not the master's. */
  void stop() {
    stopping = true;
  }

  void welcomed(SwarmWorker w) {
    if (firstWelcome.putIfAbsent(w.id, System.nanoTime()) == null) {
      welcomed.incrementAndGet();
    }
  }

  void refused(Error.Code code, boolean afterWelcome) {
    refusals.computeIfAbsent(code.name() + (afterWelcome ? " (after Welcome)" : ""), k -> new LongAdder()).increment();
  }

  void closedAfterWelcome(SwarmWorker w, Error.Code code) {
    closedAfterWelcome.merge(w.id, code == null ? "closed without an error" : code.name(), (a, b) -> a + ", " + b);
  }

  /** A piece was acknowledged as durable; {@code chunkDone} when it was its chunk's last. */
  void acked(boolean chunkDone) {
    lastAckNanos = System.nanoTime();
    piecesAcked.increment();
    if (chunkDone) {
      chunksAcked.increment();
    }
  }

  final LongAdder piecesAcked = new LongAdder();

  long lastAckNanos() {
    return lastAckNanos;
  }

  void fatal(String message) {
    problems.add("refused for good: " + message);
  }

  void unexpected(String message) {
    if (problems.size() < 100) {
      problems.add(message);
    }
  }

  int size() {
    return workers.size();
  }

  /** Refusals by the master's error code. */
  Map<String, Long> refusals() {
    Map<String, Long> out = new java.util.TreeMap<>();
    refusals.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  Map<String, String> closedAfterWelcome() {
    return new java.util.TreeMap<>(closedAfterWelcome);
  }

  List<String> problems() {
    synchronized (problems) {
      return new ArrayList<>(problems);
    }
  }

  /** The time of the last first Welcome, once all have one; -1 before. */
  long allWelcomedNanos() {
    if (firstWelcome.size() < workers.size()) {
      return -1;
    }
    return firstWelcome.values().stream().mapToLong(Long::longValue).max().orElse(-1);
  }

  @Override
  public void close() {
    stopping = true;
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(30, TimeUnit.SECONDS);
    computers.shutdownNow();
  }
}
