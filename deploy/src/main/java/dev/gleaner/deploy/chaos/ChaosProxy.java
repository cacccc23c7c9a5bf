package dev.gleaner.deploy.chaos;

import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Framing;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * A TCP proxy on loopback between one worker and the master, for the chaos suite's network cuts:
 * {@link #drop} resets every connection through it (RST both ways), {@link #stall} stops forwarding
 * in both directions (bytes and closes alike) for a while. It forwards to the master's current port
 * (read at each connection, so a restarted master may listen elsewhere), and notes every piece the
 * worker sends and every acknowledgement the master sends back ({@link ReportedPieces}).
 *
 * <p>Two threads per connection copy bytes, and read the frames (a 4-byte length and an
 * {@link Envelope}) as they go by; frames over 64 KiB (chunk input) are skipped unread. A frame it
 * cannot read stops the reading for that connection, never the forwarding.
 */
final class ChaosProxy implements AutoCloseable {
  private final String workerId;
  private final IntSupplier target;
  private final ReportedPieces reported;
  private final ServerSocket server;
  private final Set<Link> links = ConcurrentHashMap.newKeySet();
  private final Object gate = new Object();
  private long stalledUntilMillis; // guarded by gate
  private volatile boolean closed;

  ChaosProxy(String workerId, IntSupplier target, ReportedPieces reported) throws IOException {
    this.workerId = workerId;
    this.target = target;
    this.reported = reported;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "chaos-proxy-" + workerId);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  /** Connections open through this proxy now. */
  int connections() {
    return links.size();
  }

  /** Resets every connection through this proxy, both sides; returns how many there were. */
  int drop() {
    int n = 0;
    for (Link l : links) {
      l.reset();
      n++;
    }
    return n;
  }

  /** Forwards nothing (no byte, no close) for {@code millis}; connections stay open meanwhile. */
  void stall(long millis) {
    synchronized (gate) {
      stalledUntilMillis = Math.max(stalledUntilMillis, System.currentTimeMillis() + millis);
    }
  }

  private void awaitNotStalled() throws InterruptedException {
    synchronized (gate) {
      long left;
      while ((left = stalledUntilMillis - System.currentTimeMillis()) > 0 && !closed) {
        gate.wait(left);
      }
    }
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        continue; // closed, or a failed accept: the loop's condition decides
      }
      Socket upstream = new Socket();
      try {
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target.getAsInt()), 2000);
      } catch (IOException e) {
        // the master is away (restarting): the worker sees a reset and tries again later
        Link.reset(client);
        Link.reset(upstream);
        continue;
      }
      Link link = new Link(client, upstream);
      links.add(link);
      start(link, client, upstream, new FrameScanner(true));
      start(link, upstream, client, new FrameScanner(false));
    }
  }

  private void start(Link link, Socket from, Socket to, FrameScanner scanner) {
    Thread t = new Thread(() -> pump(link, from, to, scanner), "chaos-proxy-" + workerId + "-"
        + (scanner.fromWorker ? "up" : "down"));
    t.setDaemon(true);
    t.start();
  }

  private void pump(Link link, Socket from, Socket to, FrameScanner scanner) {
    byte[] buf = new byte[64 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      while (true) {
        int n = in.read(buf);
        awaitNotStalled();
        if (n < 0) {
          break;
        }
        out.write(buf, 0, n);
        out.flush();
        scanner.accept(buf, n);
      }
    } catch (IOException e) {
      // a reset or a close on either side ends the link
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      link.close();
      links.remove(link);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    synchronized (gate) {
      gate.notifyAll();
    }
    drop();
  }

  /** One worker connection and its upstream to the master. */
  private record Link(Socket client, Socket upstream) {
    void close() {
      quietly(client);
      quietly(upstream);
    }

    void reset() {
      reset(client);
      reset(upstream);
    }

    static void reset(Socket s) {
      try {
        s.setSoLinger(true, 0); // close sends RST instead of FIN
      } catch (IOException e) {
        // already closed
      }
      quietly(s);
    }

    static void quietly(Socket s) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  /** Reads the frames of one direction as they go by and notes pieces (from the worker) or acks (to it). */
  private final class FrameScanner {
    private static final int LARGEST_READ = 64 * 1024;
    private final boolean fromWorker;
    private byte[] buf = new byte[8 * 1024];
    private int len;
    private long skip;
    private boolean lost;

    FrameScanner(boolean fromWorker) {
      this.fromWorker = fromWorker;
    }

    void accept(byte[] bytes, int n) {
      int off = 0;
      if (skip > 0) {
        int s = (int) Math.min(skip, n);
        skip -= s;
        off = s;
      }
      if (lost || off == n) {
        return;
      }
      if (len + n - off > buf.length) {
        buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + n - off));
      }
      System.arraycopy(bytes, off, buf, len, n - off);
      len += n - off;
      int pos = 0;
      while (len - pos >= 4) {
        int size = ByteBuffer.wrap(buf, pos, 4).getInt();
        if (size < 0 || size > Framing.DEFAULT_MAX_FRAME_BYTES) {
          lost = true;
          return;
        }
        if (size > LARGEST_READ) {
          // chunk input: not read, passed over as it goes by
          long here = Math.min(len - pos - 4, size);
          skip = size - here;
          pos += 4 + (int) here;
          continue;
        }
        if (len - pos - 4 < size) {
          break;
        }
        try {
          note(Envelope.parseFrom(ByteBuffer.wrap(buf, pos + 4, size)));
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
          lost = true;
          return;
        }
        pos += 4 + size;
      }
      System.arraycopy(buf, pos, buf, 0, len - pos);
      len -= pos;
    }

    private void note(Envelope e) {
      long now = System.currentTimeMillis();
      if (fromWorker && e.hasPiece()) {
        reported.add(new ReportedPieces.Piece(workerId, e.getPiece().getJobId(), e.getPiece().getChunkId(),
            e.getPiece().getStart(),
            e.getPiece().getEnd(), now));
      } else if (!fromWorker && e.hasPieceAck()) {
        reported.ack(new ReportedPieces.Ack(workerId, e.getPieceAck().getJobId(), e.getPieceAck().getChunkId(),
            e.getPieceAck().getEnd(), now, e.getPieceAck().getCounted()));
      }
    }
  }
}
