package dev.gleaner.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * A token file: the role, the id and the token, so that {@code --token FILE} is all a worker or a
 * client needs on its command line.
 *
 * <pre>
 * # Gleaner worker token: logs in as worker "a" and as nothing else. Keep it secret.
 * role=worker
 * id=a
 * token=BASE64
 * </pre>
 *
 * <p>A token made after a revocation of its id has a {@code generation=G} line too.
 */
public final class TokenFile {
  private TokenFile() {}

  /** The file's text for this credential. */
  public static String format(PeerCredential c) {
    String role = Auth.roleName(c.role());
    return "# Gleaner " + role + " token: " + describe(c.role(), c.id()) + ". Keep it secret.\n"
        + "role=" + role + "\n"
        + "id=" + c.id() + "\n"
        + (c.generation() == 0 ? "" : "generation=" + c.generation() + "\n")
        + "token=" + Base64.getEncoder().encodeToString(c.key()) + "\n";
  }

  /** What a token of {@code role} for {@code id} lets its holder do, in one clause. */
  public static String describe(Role role, String id) {
    return switch (role) {
      case WORKER -> "logs in as worker '" + id + "' and as nothing else";
      case OPERATOR -> "acts as operator '" + id + "': submits and reads like a client, and may also cancel and forget"
          + " anybody's job, drain workers and revoke tokens";
      case RELAY -> "logs in as relay '" + id + "', which passes workers' connections up; it computes nothing and"
          + " cannot log in as a worker or a client";
      default -> "submits jobs, reads status and cancels its own jobs as client '" + id + "'; it cannot register as a worker";
    };
  }

  public static PeerCredential read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("token file " + file + " does not exist; make one with `gleaner token worker ID`,"
          + " `gleaner token client NAME` or `gleaner token operator NAME`", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read token file " + file + ": " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  static PeerCredential parse(String text, String source) {
    Map<String, String> fields = new HashMap<>();
    for (String line : text.split("\\R")) {
      String l = line.strip();
      if (l.isEmpty() || l.startsWith("#")) {
        continue;
      }
      int eq = l.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(source + " is not a token file (line '" + abbreviate(l) + "')");
      }
      fields.put(l.substring(0, eq).strip(), l.substring(eq + 1).strip());
    }
    for (String k : new String[] {"role", "id", "token"}) {
      if (!fields.containsKey(k) || fields.get(k).isEmpty()) {
        throw new IllegalArgumentException(source + " is not a token file: it has no " + k + "=");
      }
    }
    Role role = Auth.role(fields.get("role"));
    byte[] token;
    try {
      token = Base64.getDecoder().decode(fields.get("token"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + ": token= is not base64", e);
    }
    if (token.length < SecretFile.MIN_BYTES) {
      throw new IllegalArgumentException(source + ": the token is " + token.length + " bytes; at least "
          + SecretFile.MIN_BYTES + " are needed");
    }
    int generation = 0;
    if (fields.containsKey("generation")) {
      try {
        generation = Integer.parseInt(fields.get("generation"));
      } catch (NumberFormatException e) {
        generation = -1;
      }
      if (generation < 0) {
        throw new IllegalArgumentException(source + ": generation= is a whole number of 0 or more, not '"
            + abbreviate(fields.get("generation")) + "'");
      }
    }
    for (String k : fields.keySet()) {
      if (!java.util.Set.of("role", "id", "token", "generation").contains(k)) {
        throw new IllegalArgumentException(source + ": unknown key '" + abbreviate(k) + "' (a token file has role=, id=,"
            + " token= and, after a revocation, generation=)");
      }
    }
    return PeerCredential.token(role, fields.get("id"), token, generation);
  }

  private static String abbreviate(String s) {
    return s.length() > 20 ? s.substring(0, 20) + "..." : s;
  }
}
