package dev.gleaner.master.testing;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.AuthResponse;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.HeldChunk;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.Speed;
import dev.gleaner.protocol.tls.ClientTls;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.List;

/**
 * A scripted peer on a blocking loopback socket: says exactly what a test tells it to, so that every
 * bad input can be produced on purpose. Every read is bounded by the socket timeout.
 */
public final class RawPeer implements AutoCloseable {
  public final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  public RawPeer(int port) throws IOException {
    this(new Socket("127.0.0.1", port));
  }

  private RawPeer(Socket s) throws IOException {
    socket = s;
    socket.setSoTimeout(10_000);
    socket.setTcpNoDelay(true);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
  }

  private List<HeldChunk> held = List.of();
  private dev.gleaner.protocol.Availability away;

  public static RawPeer worker(int port, byte[] secret, String id) throws IOException {
    return worker(port, secret, id, 0);
  }

  /** A worker peer logged in with {@code credential}. */
  public static RawPeer worker(int port, PeerCredential credential, String id) throws IOException {
    RawPeer p = new RawPeer(port);
    p.handshake(credential, Role.WORKER, id, List.of("primes", "grep"), 0);
    return p;
  }

  /** A worker peer that says which process it is ({@code Hello.instance}). */
  public static RawPeer worker(int port, byte[] secret, String id, long instance) throws IOException {
    RawPeer p = new RawPeer(port);
    p.handshake(secret, Role.WORKER, id, List.of("primes", "grep"), instance);
    return p;
  }

  /** A worker peer that kept computing {@code held} while it had no master. */
  public static RawPeer worker(int port, byte[] secret, String id, long instance, List<HeldChunk> held) throws IOException {
    RawPeer p = new RawPeer(port);
    p.held = held;
    p.handshake(secret, Role.WORKER, id, List.of("primes", "grep"), instance);
    return p;
  }

  /** A worker peer whose owner's policy keeps it from taking work when it connects. */
  public static RawPeer workerAway(int port, byte[] secret, String id, dev.gleaner.protocol.Availability away) throws IOException {
    RawPeer p = new RawPeer(port);
    p.away = away;
    p.handshake(secret, Role.WORKER, id, List.of("primes", "grep"), 0);
    return p;
  }

  /** A peer that speaks TLS to {@code host} (which must resolve to loopback) and checks the master's certificate. */
  public static RawPeer tls(String host, int port, ClientTls tls) throws IOException {
    Socket plain = new Socket(host, port);
    try {
      return new RawPeer(tls.wrap(plain, host, port));
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  public static RawPeer client(int port, byte[] secret) throws IOException {
    RawPeer p = new RawPeer(port);
    p.handshake(secret, Role.CLIENT, "test-client", List.of());
    return p;
  }

  public void handshake(byte[] secret, Role role, String id, List<String> workloads) throws IOException {
    handshake(secret, role, id, workloads, 0);
  }

  public void handshake(byte[] secret, Role role, String id, List<String> workloads, long instance) throws IOException {
    handshake(PeerCredential.sharedSecret(secret), role, id, workloads, instance);
  }

  /** Says hello as {@code role} and {@code id} and answers with {@code credential}; throws unless welcomed. */
  public void handshake(PeerCredential credential, Role role, String id, List<String> workloads, long instance) throws IOException {
    Envelope welcome = login(credential, role, id, workloads, instance);
    if (!welcome.hasWelcome()) {
      throw new IOException("expected a welcome, got " + welcome);
    }
  }

  /** Says hello and answers the challenge; returns the master's reply (a Welcome or an Error). */
  public Envelope login(PeerCredential credential, Role role, String id, List<String> workloads, long instance) throws IOException {
    Hello.Builder hello = Messages.hello(role, id, "test-host", 1, workloads).getHello().toBuilder()
        .setInstance(instance).setCredential(credential.kind()).setTokenGeneration(credential.generation())
        .addAllHeld(held);
    if (away != null) {
      hello.setAway(away);
    }
    for (String w : workloads) {
      // a calibration, so the master plans this worker like any other
      hello.addSpeeds(Speed.newBuilder().setWorkload(w).setUnitsPerSecond(1e6));
    }
    send(Envelope.newBuilder().setHello(hello).build());
    Envelope challenge = read();
    if (challenge.hasError()) {
      return challenge;
    }
    if (!challenge.hasChallenge()) {
      throw new IOException("expected a challenge, got " + challenge);
    }
    byte[] mac = credential.answer(challenge.getChallenge().getNonce().toByteArray(), role, id);
    send(Envelope.newBuilder().setAuthResponse(AuthResponse.newBuilder().setMac(ByteString.copyFrom(mac))).build());
    return read();
  }

  public void send(Envelope e) throws IOException {
    byte[] b = e.toByteArray();
    out.writeInt(b.length);
    out.write(b);
    out.flush();
  }

  public void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** The next message; throws EOFException if the master closed the connection. */
  public Envelope read() throws IOException {
    int n = in.readInt();
    byte[] b = new byte[n];
    in.readFully(b);
    return Envelope.parseFrom(b);
  }

  /** The next message that is not a PieceAck or the master's answer to a heartbeat, or null on timeout. */
  public Envelope readSkippingAcks(int timeoutMillis) throws IOException {
    return readSkipping(timeoutMillis, e -> e.hasPieceAck() || e.hasHeartbeat());
  }

  /** The next message that is not the master's answer to a heartbeat, or null on timeout. */
  public Envelope readSkippingHeartbeats(int timeoutMillis) throws IOException {
    return readSkipping(timeoutMillis, Envelope::hasHeartbeat);
  }

  public Envelope readSkipping(int timeoutMillis, java.util.function.Predicate<Envelope> skip) throws IOException {
    int old = socket.getSoTimeout();
    socket.setSoTimeout(timeoutMillis);
    try {
      while (true) {
        Envelope e = read();
        if (!skip.test(e)) {
          return e;
        }
      }
    } catch (SocketTimeoutException e) {
      return null;
    } finally {
      socket.setSoTimeout(old);
    }
  }

  /** True once the master has closed the connection (reads EOF within the socket timeout). */
  public boolean closedByMaster() throws IOException {
    try {
      while (true) {
        read();
      }
    } catch (EOFException | SocketException e) {
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
