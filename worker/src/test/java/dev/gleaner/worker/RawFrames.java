package dev.gleaner.worker;

import dev.gleaner.protocol.Envelope;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** The master's side of the wire in a test that plays the master over a plain socket: length-prefixed envelopes. */
final class RawFrames {
  private RawFrames() {}

  static Envelope read(DataInputStream in) throws IOException {
    int n = in.readInt();
    byte[] b = new byte[n];
    in.readFully(b);
    return Envelope.parseFrom(b);
  }

  static void send(DataOutputStream out, Envelope e) throws IOException {
    byte[] b = e.toByteArray();
    out.writeInt(b.length);
    out.write(b);
    out.flush();
  }
}
