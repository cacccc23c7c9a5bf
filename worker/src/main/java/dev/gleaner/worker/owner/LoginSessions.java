package dev.gleaner.worker.owner;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Interactive logins from the system's utmp file, as {@code who -u} sees them: a terminal session
 * counts from its last keystroke (its terminal device's access time), a session with no terminal
 * device (a graphical login on {@code :0}) counts as the owner present for as long as it lasts.
 *
 * <p>How: utmp is an array of 384-byte {@code struct utmp} records (glibc on 64-bit Linux,
 * little-endian): {@code ut_type} at 0 (7 is a user's login), {@code ut_line} (32 bytes) at 8,
 * {@code ut_user} (32 bytes) at 44.
 */
public final class LoginSessions implements OwnerActivity {
  static final int RECORD = 384;
  static final int USER_PROCESS = 7;

  private final Path utmp;
  private final Path dev;

  public LoginSessions(Path utmp, Path dev) {
    this.utmp = utmp;
    this.dev = dev;
  }

  /** The system's {@code /var/run/utmp} and {@code /dev}. */
  public static LoginSessions system() {
    return new LoginSessions(Path.of("/var/run/utmp"), Path.of("/dev"));
  }

  @Override
  public String name() {
    return "logins in " + utmp;
  }

  /** A login: who, on which line. */
  record Login(String user, String line) {}

  @Override
  public Observation observe(Instant now) throws IOException {
    if (!Files.exists(utmp)) {
      return Observation.nothing();
    }
    Instant last = null;
    List<String> seen = new ArrayList<>();
    for (Login l : logins(Files.readAllBytes(utmp), utmp.toString())) {
      Path tty = dev.resolve(l.line()).normalize();
      Instant at;
      if (!l.line().isEmpty() && tty.startsWith(dev) && Files.exists(tty)) {
        at = Files.readAttributes(tty, BasicFileAttributes.class).lastAccessTime().toInstant();
        at = at.isAfter(now) ? now : at;
      } else {
        at = now;
      }
      if (last == null || at.isAfter(last)) {
        last = at;
      }
      seen.add(l.user() + " on " + (l.line().isEmpty() ? "?" : l.line()));
    }
    return last == null ? Observation.nothing() : Observation.input(last, "logged in: " + String.join(", ", seen));
  }

  /** The users' logins in a utmp file's bytes. */
  static List<Login> logins(byte[] bytes, String source) throws IOException {
    if (bytes.length % RECORD != 0) {
      throw new IOException(source + " is " + bytes.length + " bytes, not a whole number of " + RECORD
          + "-byte utmp records (this is not 64-bit glibc's utmp)");
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    List<Login> out = new ArrayList<>();
    for (int at = 0; at < bytes.length; at += RECORD) {
      if (b.getShort(at) == USER_PROCESS) {
        out.add(new Login(text(bytes, at + 44, 32), text(bytes, at + 8, 32)));
      }
    }
    return out;
  }

  private static String text(byte[] bytes, int from, int max) {
    int n = 0;
    while (n < max && bytes[from + n] != 0) {
      n++;
    }
    return new String(bytes, from, n, StandardCharsets.UTF_8);
  }
}
