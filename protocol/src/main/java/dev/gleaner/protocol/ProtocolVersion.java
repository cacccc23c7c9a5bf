package dev.gleaner.protocol;

/** The protocol version carried in the first message of each side. */
public final class ProtocolVersion {
  /** Bumped on any incompatible change of {@code gleaner.proto} or of the handshake. */
  public static final int CURRENT = 12;

  private ProtocolVersion() {}

  /** The sentence both sides print when versions differ. */
  public static String mismatch(int theirs) {
    return "protocol version mismatch: peer speaks version " + theirs + ", this side speaks version "
        + CURRENT + "; run the same Gleaner release on master, workers and clients";
  }
}
