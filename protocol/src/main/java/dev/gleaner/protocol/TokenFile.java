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
 */
public final class TokenFile {
  private TokenFile() {}

  /** The file's text for this credential. */
  public static String format(PeerCredential c) {
    String role = Auth.roleName(c.role());
    String can = c.role() == Role.WORKER ? "logs in as worker '" + c.id() + "' and as nothing else"
        : "submits jobs and reads status as client '" + c.id() + "'; it cannot register as a worker";
    return "# Gleaner " + role + " token: " + can + ". Keep it secret.\n"
        + "role=" + role + "\n"
        + "id=" + c.id() + "\n"
        + "token=" + Base64.getEncoder().encodeToString(c.key()) + "\n";
  }

  public static PeerCredential read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("token file " + file + " does not exist; make one with `gleaner token worker ID`"
          + " or `gleaner token client NAME`", e);
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
    return PeerCredential.token(role, fields.get("id"), token);
  }

  private static String abbreviate(String s) {
    return s.length() > 20 ? s.substring(0, 20) + "..." : s;
  }
}
