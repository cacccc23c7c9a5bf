package dev.gleaner.deploy.format;

import dev.gleaner.common.time.WeeklyWindows;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The hosts file of {@code gleaner cluster}: one computer a line,
 * <pre>
 * # comment
 * lab-pc-1
 * lab-pc-2  cores=4 available="Fri 18:00-Mon 08:00" tags=desktop,room-2
 * node-7    user=gleaner port=2222 id=node-7-gpu dir=/opt/gleaner
 * </pre>
 * The host first, then {@code key=value} settings, a value in double quotes when it holds spaces. Every error
 * is one line naming {@code FILE:LINE}; an unknown key is an error, never ignored.
 */
public final class HostsFile {
  static final List<String> KEYS = List.of("cores", "available", "tags", "user", "port", "id", "dir");

  /** Host names, user names, worker ids and tags: what ssh, shells and systemd unit names take as they are. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  /** One computer of the file. */
  public record Host(String name, String user, Integer port, Integer cores, String available, List<String> tags, String id,
      String dir, String where) {
    /** The worker's id: {@code id=}, else the host's name. */
    public String workerId() {
      return id != null ? id : name;
    }

    /** ssh's destination: {@code user@host} or {@code host}. */
    String destination() {
      return user == null ? name : user + "@" + name;
    }
  }

  private HostsFile() {}

  public static List<Host> read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("hosts file " + file + " does not exist", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read hosts file " + file + ": " + e.getMessage(), e);
    }
    return parse(text, file.toString());
  }

  static List<Host> parse(String text, String file) {
    List<Host> hosts = new ArrayList<>();
    Map<String, String> ids = new HashMap<>();
    String[] lines = text.split("\r?\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String where = file + ":" + (i + 1);
      List<String> words = words(lines[i], where);
      if (words.isEmpty()) {
        continue;
      }
      Host h = host(words, where);
      String earlier = ids.putIfAbsent(h.workerId(), where);
      if (earlier != null) {
        throw new IllegalArgumentException(where + ": worker id '" + h.workerId() + "' is also on " + earlier
            + " (ids are unique: give one of them id=OTHER)");
      }
      hosts.add(h);
    }
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException(file + ": no hosts (one a line: host [cores=N] [available=\"Fri 18:00-Mon 08:00\"]"
          + " [tags=a,b] [user=U] [port=P] [id=ID] [dir=DIR])");
    }
    return hosts;
  }

  private static Host host(List<String> words, String where) {
    String name = words.get(0);
    if (name.contains("=")) {
      throw new IllegalArgumentException(where + ": a line starts with the host's name, not '" + name + "'");
    }
    requireName(name, "host name", where);
    Map<String, String> settings = new LinkedHashMap<>();
    for (String w : words.subList(1, words.size())) {
      int eq = w.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(where + ": '" + w + "' is not key=value (one host a line; keys: "
            + String.join(", ", KEYS) + ")");
      }
      String key = w.substring(0, eq);
      String value = w.substring(eq + 1);
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException(where + ": unknown key '" + key + "'; known keys: " + String.join(", ", KEYS));
      }
      if (settings.put(key, value) != null) {
        throw new IllegalArgumentException(where + ": '" + key + "' is given twice");
      }
      if (value.isEmpty()) {
        throw new IllegalArgumentException(where + ": '" + key + "' has no value");
      }
    }
    Integer cores = settings.containsKey("cores") ? number(settings.get("cores"), "cores", 1, 4096, where) : null;
    Integer port = settings.containsKey("port") ? number(settings.get("port"), "port", 1, 65535, where) : null;
    String available = settings.get("available");
    if (available != null) {
      try {
        WeeklyWindows.parse(List.of(available), ZoneId.systemDefault());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": available: " + e.getMessage(), e);
      }
    }
    List<String> tags = new ArrayList<>();
    if (settings.containsKey("tags")) {
      for (String t : settings.get("tags").split(",", -1)) {
        requireName(t, "tag", where);
        tags.add(t);
      }
    }
    String user = settings.get("user");
    if (user != null) {
      requireName(user, "user name", where);
    }
    String id = settings.get("id");
    if (id != null) {
      requireName(id, "worker id", where);
    }
    String dir = settings.get("dir");
    if (dir != null && !dir.startsWith("/") && !dir.startsWith("~/")) {
      throw new IllegalArgumentException(where + ": dir must be an absolute path or start with ~/, got '" + dir + "'");
    }
    return new Host(name, user, port, cores, available, List.copyOf(tags), id, dir, where);
  }

  private static void requireName(String s, String what, String where) {
    if (!NAME.matcher(s).matches()) {
      throw new IllegalArgumentException(where + ": '" + s + "' is not a " + what
          + " (letters, digits, '.', '_' and '-', starting with a letter or digit)");
    }
  }

  private static int number(String s, String key, int min, int max, String where) {
    try {
      int n = Integer.parseInt(s);
      if (n < min || n > max) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(where + ": " + key + " must be a whole number within " + min + ".." + max
          + ", got '" + s + "'", e);
    }
  }

  /** The line's words: whitespace separates them, double quotes keep spaces in, {@code #} starts a comment. */
  private static List<String> words(String line, String where) {
    List<String> words = new ArrayList<>();
    StringBuilder w = null;
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"') {
          quoted = false;
        } else {
          w.append(c);
        }
      } else if (c == '"') {
        if (w == null) {
          w = new StringBuilder();
        }
        quoted = true;
      } else if (c == '#') {
        break;
      } else if (Character.isWhitespace(c)) {
        if (w != null) {
          words.add(w.toString());
          w = null;
        }
      } else {
        if (w == null) {
          w = new StringBuilder();
        }
        w.append(c);
      }
    }
    if (quoted) {
      throw new IllegalArgumentException(where + ": a double quote is not closed");
    }
    if (w != null) {
      words.add(w.toString());
    }
    return words;
  }
}
