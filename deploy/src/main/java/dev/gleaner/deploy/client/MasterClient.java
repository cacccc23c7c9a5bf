package dev.gleaner.deploy.client;

import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.ProtocolVersion;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.StatusRequest;
import dev.gleaner.protocol.Submit;
import dev.gleaner.protocol.SubmitReply;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.TlsProblem;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

/**
 * A blocking client for the master's port: authenticates, then submits jobs and asks for status.
 * One request at a time; every failure is an {@link IOException} with a sentence for people.
 */
public final class MasterClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;

  private final String master;

  private MasterClient(Socket socket, String master) throws IOException {
    this.socket = socket;
    this.master = master;
    this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
  }

  /** Connects in clear text with the shared secret (demos, benchmarks). */
  public static MasterClient connect(HostPort master, byte[] secret) throws IOException {
    return connect(master, PeerCredential.sharedSecret(secret), null);
  }

  /** Connects with a token or the shared secret, over TLS when {@code tls} is not null. */
  public static MasterClient connect(HostPort master, PeerCredential credential, ClientTls tls) throws IOException {
    Socket s = new Socket();
    try {
      s.connect(new InetSocketAddress(master.host(), master.port()), 5000);
      s.setSoTimeout(30_000);
      // each request is one write: nothing is gained by holding it back for an acknowledgement
      s.setTcpNoDelay(true);
    } catch (IOException e) {
      s.close();
      throw new IOException("cannot reach the master at " + master + ": " + e.getMessage()
          + " (is `gleaner master` running there?)", e);
    }
    if (tls != null) {
      try {
        s = tls.wrap(s, master.host(), master.port());
      } catch (IOException e) {
        s.close();
        TlsProblem problem = TlsProblem.of(e, master.toString());
        throw new IOException(problem == null ? "cannot reach the master at " + master + ": " + e.getMessage()
            : problem.message(), e);
      }
    }
    MasterClient c = new MasterClient(s, master.toString());
    try {
      c.handshake(credential);
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private void handshake(PeerCredential credential) throws IOException {
    String id = credential.isToken() ? credential.id() : "client-" + ProcessHandle.current().pid();
    Role role = credential.clientRole();
    send(Envelope.newBuilder().setHello(Messages.hello(role, id, "", 0, List.of()).getHello().toBuilder()
        .setCredential(credential.kind()).setTokenGeneration(credential.generation())).build());
    Envelope challenge = expect(Envelope.BodyCase.CHALLENGE);
    if (challenge.getChallenge().getProtocolVersion() != ProtocolVersion.CURRENT) {
      throw new IOException(ProtocolVersion.mismatch(challenge.getChallenge().getProtocolVersion()));
    }
    send(Messages.answer(challenge.getChallenge(), credential, role, id));
    expect(Envelope.BodyCase.WELCOME);
  }

  /** Submits a job; returns its id. */
  public String submit(JobSpec spec) throws IOException {
    return submitReply(spec).getJobId();
  }

  /** Submits a job; the reply says its id and whether its key named a job submitted before. */
  public SubmitReply submitReply(JobSpec spec) throws IOException {
    send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(spec)).build());
    return expect(Envelope.BodyCase.SUBMIT_REPLY).getSubmitReply();
  }

  public StatusReply status(String jobId) throws IOException {
    return status(jobId, false);
  }

  /** Jobs (all, or this one) and the workers: the first 200 and counts of the rest, or every one. */
  public StatusReply status(String jobId, boolean allWorkers) throws IOException {
    return status(StatusRequest.newBuilder().setJobId(jobId == null ? "" : jobId).setAllWorkers(allWorkers));
  }

  /**
   * A job's line once it has ended, or after {@code waitMs} if it has not (a master older than
   * the wait answers at once: callers that loop must not assume the wait happened). Without the
   * workers and the meters, which a follower does not need (an older master sends them all the same).
   */
  public StatusReply status(String jobId, long waitMs) throws IOException {
    return status(StatusRequest.newBuilder().setJobId(jobId == null ? "" : jobId)
        .setWaitMs((int) Math.max(0, Math.min(waitMs, 20_000))).setJobOnly(true));
  }

  private StatusReply status(StatusRequest.Builder request) throws IOException {
    send(Envelope.newBuilder().setStatusRequest(request).build());
    return expect(Envelope.BodyCase.STATUS_REPLY).getStatusReply();
  }

  /**
   * Asks a connected worker to leave: it drains and exits.
   *
   * @throws RefusedException if no such worker is connected
   */
  public void drain(String workerId, String reason) throws IOException {
    send(Envelope.newBuilder().setDrainRequest(dev.gleaner.protocol.DrainRequest.newBuilder().setWorkerId(workerId)
        .setReason(reason)).build());
    expect(Envelope.BodyCase.DRAIN_REPLY);
  }

  /**
   * Sets an owner's weight in the fair share of the workers (0: back to the default, 1); every weight
   * set, by owner.
   *
   * @throws RefusedException if the caller is not an operator, or the owner or weight is not valid
   */
  public java.util.Map<String, Double> share(String owner, double weight) throws IOException {
    send(Envelope.newBuilder().setSetShare(dev.gleaner.protocol.SetShare.newBuilder().setOwner(owner)
        .setWeight(weight)).build());
    java.util.Map<String, Double> all = new java.util.LinkedHashMap<>();
    for (dev.gleaner.protocol.Share s : expect(Envelope.BodyCase.SHARES_REPLY).getSharesReply().getSharesList()) {
      all.put(s.getOwner(), s.getWeight());
    }
    return all;
  }

  /**
   * Ends a running job, keeping what is saved and, within {@code graceMs}, what its workers computed
   * since their last pieces (0: at once).
   *
   * @throws RefusedException if the job is unknown or has ended, or the grace is over the master's limit
   */
  public dev.gleaner.protocol.JobReply cancel(String jobId, String reason, long graceMs) throws IOException {
    send(Envelope.newBuilder().setCancelJob(dev.gleaner.protocol.CancelJob.newBuilder().setJobId(jobId)
        .setReason(reason).setGraceMs((int) Math.min(Integer.MAX_VALUE, graceMs))).build());
    return expect(Envelope.BodyCase.JOB_REPLY).getJobReply();
  }

  /**
   * Drops an ended job and everything stored of it.
   *
   * @throws RefusedException if the job is unknown or still running
   */
  public dev.gleaner.protocol.JobReply forget(String jobId) throws IOException {
    send(Envelope.newBuilder().setForgetJob(dev.gleaner.protocol.ForgetJob.newBuilder().setJobId(jobId)).build());
    return expect(Envelope.BodyCase.JOB_REPLY).getJobReply();
  }

  /**
   * Streams the whole result of an ended job to {@code out}, part by part; returns its bytes.
   *
   * @throws RefusedException if the job is unknown, running or failed
   */
  public long result(String jobId, java.io.OutputStream out) throws IOException {
    send(Envelope.newBuilder().setResultRequest(dev.gleaner.protocol.ResultRequest.newBuilder().setJobId(jobId)).build());
    long total = 0;
    // bounded: each part carries at least one byte unless it is the last
    while (true) {
      dev.gleaner.protocol.ResultPart part = expect(Envelope.BodyCase.RESULT_PART).getResultPart();
      part.getData().writeTo(out);
      total += part.getData().size();
      if (part.getLast()) {
        out.flush();
        return total;
      }
      if (part.getData().isEmpty()) {
        throw new IOException("the master sent an empty part of the result of " + jobId);
      }
    }
  }

  /**
   * Revokes the tokens {@code role}/{@code id} has (an operator only): its logins are refused and
   * its live sessions closed.
   *
   * @throws RefusedException if this session is not an operator's
   */
  public dev.gleaner.protocol.RevokeReply revoke(Role role, String id, String reason) throws IOException {
    send(Envelope.newBuilder().setRevoke(dev.gleaner.protocol.Revoke.newBuilder().setRole(role).setId(id)
        .setReason(reason)).build());
    return expect(Envelope.BodyCase.REVOKE_REPLY).getRevokeReply();
  }

  /**
   * The revoked token ids (an operator only).
   *
   * @throws RefusedException if this session is not an operator's
   */
  public List<dev.gleaner.protocol.Revocation> revocations() throws IOException {
    send(Envelope.newBuilder().setRevocationsRequest(dev.gleaner.protocol.RevocationsRequest.getDefaultInstance()).build());
    return expect(Envelope.BodyCase.REVOCATIONS_REPLY).getRevocationsReply().getRevocationsList();
  }

  private void send(Envelope e) throws IOException {
    byte[] bytes = e.toByteArray();
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  private Envelope expect(Envelope.BodyCase expected) throws IOException {
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      throw new IOException("the master closed the connection", e);
    } catch (javax.net.ssl.SSLException e) {
      // with TLS 1.3 a refused client certificate shows on the first read
      TlsProblem problem = TlsProblem.of(e, master);
      throw new IOException(problem == null ? e.getMessage() : problem.message(), e);
    }
    if (length < 0 || length > Framing.DEFAULT_MAX_FRAME_BYTES) {
      throw new IOException("the master sent a frame of " + length + " bytes, over the limit");
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    Envelope e = Envelope.parseFrom(bytes);
    if (e.hasError()) {
      throw new RefusedException(e.getError().getMessage());
    }
    if (e.getBodyCase() != expected) {
      throw new IOException("the master answered " + e.getBodyCase() + " where " + expected + " was expected");
    }
    return e;
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** The master answered with an error message. */
  public static final class RefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    RefusedException(String message) {
      super(message);
    }
  }
}
