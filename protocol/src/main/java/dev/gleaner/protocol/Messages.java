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

  public static Envelope goodbye(String reason) {
    return Envelope.newBuilder().setGoodbye(Goodbye.newBuilder().setReason(reason)).build();
  }
}
