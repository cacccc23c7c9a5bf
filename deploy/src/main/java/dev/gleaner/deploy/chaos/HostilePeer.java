package dev.gleaner.deploy.chaos;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.AuthResponse;
import dev.gleaner.protocol.Credential;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.tls.ClientTls;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One hostile connection to a master, of one {@link Attack}, and what the master answered: the code
 * of its Error frame, or how the connection ended. Blocking sockets, each bounded in time (5 s to
 * connect, {@link #READ_SECONDS} per read): nothing here waits longer than the master's 30 s
 * handshake limit and a margin. Used by {@code gleaner bench --hostile}
 * ({@link dev.gleaner.deploy.bench.hostile.HostileBench}).
 */
public final class HostilePeer {
  /** Longer than the master's handshake limit (30 s), so an idle peer hears the master's verdict. */
  public static final int READ_SECONDS = 40;
  /** The largest frame a peer may send before it has logged in (the master's LoginGate). */
  static final int PRE_AUTH_FRAME_BYTES = 64 * 1024;
  /** Connections one {@link Attack#PER_ADDRESS} burst opens from one address (the master admits 16). */
  public static final int BURST = 40;

  /** Outcome labels beside the Error codes. */
  static final String CLOSED = "closed without an error";
  static final String RESET = "reset";
  static final String NO_ANSWER = "no answer";
  public static final String HELD = "held (admitted to the handshake)";
  static final String CHALLENGED = "CHALLENGE (hello taken, then we left)";
  public static final String LOGGED_IN = "WELCOME (logged in)";
  static final String CONNECT_FAILED = "connect failed";

  /** The kinds of hostile peer, with the outcomes the master's defences should give each. */
  public enum Attack {
    /** Slowloris: connects and sends nothing, never finishing the handshake. */
    IDLE("connect, send nothing", Set.of("NOT_AUTHENTICATED")),
    /** A frame header declaring up to 2 GiB (or a negative length). */
    HUGE_LENGTH("declare a frame > 64 KiB", Set.of("FRAME_TOO_LARGE")),
    /** Random bytes from the first byte on. */
    GARBAGE("random bytes", Set.of("FRAME_TOO_LARGE", "BAD_FRAME", "NOT_AUTHENTICATED", "UNEXPECTED_MESSAGE")),
    /** A Hello mutated as FrameFuzzTest mutates frames, sent as one well-delimited frame. */
    FUZZED_HELLO("a mutated Hello frame", Set.of("BAD_FRAME", "NOT_AUTHENTICATED", "UNEXPECTED_MESSAGE",
        "VERSION_MISMATCH", CHALLENGED)),
    /** A valid Hello, then silence instead of the answer to the challenge. */
    HELLO_SILENCE("Hello, then silence", Set.of("NOT_AUTHENTICATED")),
    /** A valid Hello, then a wrong answer (a guessed secret). */
    WRONG_SECRET("Hello, wrong secret answer", Set.of("AUTH_FAILED")),
    /** A valid Hello whose body is over the 64 KiB pre-auth frame limit. */
    OVERSIZED_HELLO("Hello > 64 KiB", Set.of("FRAME_TOO_LARGE", RESET)),
    /** A second process under a live worker's id, holding the shared secret. */
    DUPLICATE_ID("worker id of a live worker", Set.of("ID_IN_USE")),
    /** {@link #BURST} connections at once from one address. */
    PER_ADDRESS(BURST + " at once from one address", Set.of("TOO_MANY_CONNECTIONS", HELD)),
    /** A clear-text Hello to a master that speaks TLS only. */
    PLAIN_TO_TLS("plain TCP to the TLS master", Set.of("TLS_REQUIRED")),
    /** A worker's token used to log in as a client under the worker's id. */
    WORKER_TOKEN_AS_CLIENT("worker token as a client", Set.of("AUTH_FAILED")),
    /** A client's token used to register as a worker. */
    CLIENT_TOKEN_AS_WORKER("client token as a worker", Set.of("AUTH_FAILED")),
    /** Worker w1's token used to log in as worker w2. */
    TAKEOVER("w1's token claiming id w2", Set.of("AUTH_FAILED")),
    /** A shared-secret login to a master that takes tokens only. */
    SECRET_TO_TOKEN_MASTER("shared secret to a tokens-only master", Set.of("AUTH_FAILED"));

    private final String what;
    private final Set<String> expected;

    Attack(String what, Set<String> expected) {
      this.what = what;
      this.expected = expected;
    }

    /** What the peer does, in a few words. */
    public String what() {
      return what;
    }

    /** The outcomes the master's defences should give it. */
    public Set<String> expected() {
      return expected;
    }
  }

  /**
   * The master under attack and what a hostile peer may know of it.
   *
   * @param tls TLS trusting the cluster CA (the attacker is a TLS peer with wrong credentials), or null
   * @param secret the shared secret, for {@link Attack#DUPLICATE_ID}; null on a tokens-only master
   * @param workerToken worker w1's token; clientToken client admin's token (null without TLS)
   */
  public record Target(int port, ClientTls tls, byte[] secret, byte[] workerToken, byte[] clientToken) {}

  /** One connection's outcome; {@code seconds} from connect to the outcome. */
  public record Outcome(Attack attack, String label, double seconds) {}

  private HostilePeer() {}

  /** Runs one attack from {@code from}; a {@link Attack#PER_ADDRESS} burst gives {@link #BURST} outcomes. */
  public static List<Outcome> run(Attack attack, Target target, InetAddress from, SplittableRandom r) {
    long t0 = System.nanoTime();
    if (attack == Attack.PER_ADDRESS) {
      return burst(target, from, t0);
    }
    String label;
    try (Socket s = open(target, from, attack != Attack.PLAIN_TO_TLS)) {
      label = attack(attack, target, s, r);
    } catch (IOException e) {
      label = e instanceof java.net.ConnectException ? CONNECT_FAILED : RESET;
    }
    return List.of(new Outcome(attack, label, (System.nanoTime() - t0) / 1e9));
  }

  private static Socket open(Target target, InetAddress from, boolean tls) throws IOException {
    Socket s = new Socket();
    try {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(from, 0));
      s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), target.port()), 5000);
      s.setSoTimeout(READ_SECONDS * 1000);
      s.setSoLinger(true, 0);
      return tls && target.tls() != null ? target.tls().wrap(s, "127.0.0.1", target.port()) : s;
    } catch (IOException e) {
      s.close();
      throw e;
    }
  }

  private static String attack(Attack attack, Target target, Socket s, SplittableRandom r) throws IOException {
    DataInputStream in = new DataInputStream(s.getInputStream());
    DataOutputStream out = new DataOutputStream(s.getOutputStream());
    switch (attack) {
      case IDLE -> { }
      case HUGE_LENGTH -> {
        out.writeInt(r.nextInt(10) == 0 ? r.nextInt(Integer.MIN_VALUE, 0) : r.nextInt(PRE_AUTH_FRAME_BYTES + 1, Integer.MAX_VALUE));
        out.write(new byte[16]);
      }
      case GARBAGE -> {
        byte[] b = new byte[r.nextInt(1, 4097)];
        r.nextBytes(b);
        out.write(b);
      }
      case FUZZED_HELLO -> frame(out, dev.gleaner.protocol.FrameMutator.mutate(r, hello(Role.WORKER, "fuzz-" + r.nextInt(1000), Credential.SHARED_SECRET,
          r.nextLong()).toByteArray()));
      case HELLO_SILENCE -> {
        frame(out, hello(Role.CLIENT, "silent", Credential.SHARED_SECRET, 0).toByteArray());
        String challenge = read(in);
        if (!challenge.equals("CHALLENGE")) {
          return challenge;
        }
      }
      case WRONG_SECRET -> {
        byte[] guess = new byte[32];
        r.nextBytes(guess);
        return login(in, out, Role.CLIENT, "intruder", Credential.SHARED_SECRET, guess, 0);
      }
      case OVERSIZED_HELLO -> {
        Envelope h = hello(Role.WORKER, "big", Credential.SHARED_SECRET, 0);
        byte[] host = new byte[r.nextInt(PRE_AUTH_FRAME_BYTES + 1, 4 * PRE_AUTH_FRAME_BYTES)];
        Arrays.fill(host, (byte) 'x');
        frame(out, h.toBuilder().setHello(h.getHello().toBuilder().setHost(new String(host,
            java.nio.charset.StandardCharsets.US_ASCII))).build().toByteArray());
      }
      case DUPLICATE_ID -> {
        return login(in, out, Role.WORKER, "w1", Credential.SHARED_SECRET, target.secret(), r.nextLong() | 1);
      }
      case PLAIN_TO_TLS -> frame(out, hello(Role.CLIENT, "plain", Credential.TOKEN, 0).toByteArray());
      case WORKER_TOKEN_AS_CLIENT -> {
        return login(in, out, Role.CLIENT, "w1", Credential.TOKEN, target.workerToken(), 0);
      }
      case CLIENT_TOKEN_AS_WORKER -> {
        return login(in, out, Role.WORKER, "admin", Credential.TOKEN, target.clientToken(), r.nextLong() | 1);
      }
      case TAKEOVER -> {
        // w1's token, answered as if it were w2's
        return login(in, out, Role.WORKER, "w2", Credential.TOKEN, target.workerToken(), r.nextLong() | 1);
      }
      case SECRET_TO_TOKEN_MASTER -> {
        byte[] guess = new byte[32];
        r.nextBytes(guess);
        return login(in, out, Role.CLIENT, "intruder", Credential.SHARED_SECRET, guess, 0);
      }
      default -> throw new IllegalArgumentException("not a single-connection attack: " + attack);
    }
    out.flush();
    String answer = read(in);
    return answer.equals("CHALLENGE") ? CHALLENGED : answer;
  }

  /** Hello, then the answer keyed with {@code key}; the master's verdict (a second frame after a Welcome). */
  private static String login(DataInputStream in, DataOutputStream out, Role role, String id, Credential credential,
      byte[] key, long instance) throws IOException {
    frame(out, hello(role, id, credential, instance).toByteArray());
    Envelope challenge = readEnvelope(in);
    if (challenge == null || !challenge.hasChallenge()) {
      return label(challenge);
    }
    byte[] mac = Auth.mac(key, challenge.getChallenge().getNonce().toByteArray(), role, id);
    frame(out, Envelope.newBuilder().setAuthResponse(AuthResponse.newBuilder().setMac(ByteString.copyFrom(mac))).build()
        .toByteArray());
    Envelope verdict = readEnvelope(in);
    if (verdict != null && verdict.hasWelcome()) {
      // a worker id already in use is refused right after the Welcome; anything else is a login
      Envelope next = readEnvelope(in);
      return next != null && next.hasError() ? label(next) : LOGGED_IN;
    }
    return label(verdict);
  }

  private static Envelope hello(Role role, String id, Credential credential, long instance) {
    Envelope h = Messages.hello(role, id, "hostile", 1, role == Role.WORKER ? List.of("primes") : List.of());
    Hello.Builder b = h.getHello().toBuilder().setCredential(credential);
    if (instance != 0) {
      b.setInstance(instance);
    }
    return Envelope.newBuilder().setHello(b).build();
  }

  private static void frame(DataOutputStream out, byte[] body) throws IOException {
    out.writeInt(body.length);
    out.write(body);
    out.flush();
  }

  /** The next frame's label: its Error code or its type; or how the connection ended. */
  private static String read(DataInputStream in) {
    try {
      return label(readEnvelope(in));
    } catch (SocketTimeoutException e) {
      return NO_ANSWER;
    } catch (IOException e) {
      return RESET;
    }
  }

  /** The next frame, or null if the master closed the connection cleanly. */
  private static Envelope readEnvelope(DataInputStream in) throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      return null;
    }
    if (length < 0 || length > (1 << 20)) {
      throw new IOException("the master sent a frame of " + length + " bytes to a peer that has not logged in");
    }
    byte[] body = new byte[length];
    in.readFully(body);
    return Envelope.parseFrom(body);
  }

  private static String label(Envelope e) {
    if (e == null) {
      return CLOSED;
    }
    if (e.hasError()) {
      return e.getError().getCode().name();
    }
    return e.hasWelcome() ? LOGGED_IN : e.getBodyCase().name();
  }

  /** {@link #BURST} connections from one address, held together: each is refused or admitted. */
  private static List<Outcome> burst(Target target, InetAddress from, long t0) {
    List<String> labels = hold(target, java.util.Collections.nCopies(BURST, from), () -> { });
    List<Outcome> outcomes = new ArrayList<>();
    for (String label : labels) {
      outcomes.add(new Outcome(Attack.PER_ADDRESS, label, (System.nanoTime() - t0) / 1e9));
    }
    return outcomes;
  }

  /**
   * Opens one idle connection from each of {@code froms}, all held together; after a second (refusals
   * are written as a connection becomes active) runs {@code whileHeld}, then reads each connection's
   * answer ({@link #HELD} if none) and closes them all.
   */
  public static List<String> hold(Target target, List<InetAddress> froms, Runnable whileHeld) {
    List<Socket> sockets = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    try {
      for (InetAddress from : froms) {
        try {
          sockets.add(open(target, from, true));
        } catch (IOException e) {
          labels.add(CONNECT_FAILED);
        }
      }
      ChaosCluster.pause(1000);
      whileHeld.run();
      for (Socket s : sockets) {
        String label;
        try {
          s.setSoTimeout(50);
          label = read(new DataInputStream(s.getInputStream()));
        } catch (IOException e) {
          label = RESET;
        }
        labels.add(label.equals(NO_ANSWER) ? HELD : label);
      }
    } finally {
      for (Socket s : sockets) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing a socket the master already closed
        }
      }
    }
    return labels;
  }
}
