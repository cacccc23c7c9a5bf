package dev.gleaner.protocol;

/** Builders for the envelopes every side sends. */
public final class Messages {
  private Messages() {}

  public static Envelope error(Error.Code code, String message) {
    return Envelope.newBuilder().setError(Error.newBuilder().setCode(code).setMessage(message)).build();
  }

  public static Envelope hello(Role role, String peerId, String host, int cores, Iterable<String> workloads) {
    return Envelope.newBuilder().setHello(Hello.newBuilder()
        .setProtocolVersion(ProtocolVersion.CURRENT)
        .setRole(role)
        .setPeerId(peerId)
        .setHost(host)
        .setCores(cores)
        .addAllWorkloads(workloads)).build();
  }

  /** The answer to {@code challenge} of a peer that said hello as {@code role} and {@code peerId}. */
  public static Envelope answer(Challenge challenge, PeerCredential credential, Role role, String peerId) {
    byte[] mac = credential.answer(challenge.getNonce().toByteArray(), role, peerId);
    return Envelope.newBuilder().setAuthResponse(AuthResponse.newBuilder()
        .setMac(com.google.protobuf.ByteString.copyFrom(mac))).build();
  }

  public static Envelope heartbeat(long seq, long nowMillis) {
    return Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSeq(seq).setSentAtMillis(nowMillis)).build();
  }

  /**
   * Encodes and decodes one envelope of each kind, so that a daemon does the protocol's first-use work
   * (its classes loaded and initialized) when it starts, not when the first message of a kind comes: a
   * worker on a busy two-core machine took 0.5-0.7 s to read its first assignment, and the job's first
   * transfer waited that long. Returns the kinds done.
   */
  public static int warmUp() {
    int kinds = 0;
    for (com.google.protobuf.Descriptors.FieldDescriptor f : Envelope.getDescriptor().getFields()) {
      if (f.getJavaType() != com.google.protobuf.Descriptors.FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      Envelope.Builder b = Envelope.newBuilder();
      b.setField(f, b.newBuilderForField(f).build());
      try {
        Envelope.parseFrom(b.build().toByteArray());
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        throw new IllegalStateException("the protocol cannot read back its own " + f.getName() + " envelope", e);
      }
      kinds++;
    }
    return kinds;
  }

  /**
   * {@link #warmUp} on a daemon thread of its own, so that a daemon's start does not wait for it (a
   * message that comes meanwhile waits only for what it needs of it).
   */
  public static void warmUpInBackground() {
    Thread t = new Thread(Messages::warmUp, "gleaner-protocol-warm-up");
    t.setDaemon(true);
    t.start();
  }

  public static Envelope goodbye(String reason) {
    return Envelope.newBuilder().setGoodbye(Goodbye.newBuilder().setReason(reason)).build();
  }
}
