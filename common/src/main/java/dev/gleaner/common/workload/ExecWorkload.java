package dev.gleaner.common.workload;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code exec}: runs an external program once per piece of a chunk (a piece ends at a checkpoint
 * or at the chunk's end). Placeholders {@code {start}}, {@code {end}} and {@code {count}} in the
 * command are replaced by the piece's units; with a {@code file}, the piece's bytes are written to
 * the program's stdin. The result is the program's stdout; pieces are concatenated in unit order.
 *
 * <p>This class holds what master and worker agree on (parameters, merging); running programs is
 * the worker's business, given as a {@link Runner}. A master builds it with {@link #definitionOnly()}.
 */
public final class ExecWorkload implements Workload {
  /** Starts programs for a chunk; the worker's implementation enforces its allow-list. */
  public interface Runner {
    ChunkComputation open(List<String> commandTemplate, boolean hasInput, long start, long end);
  }

  private final Runner runner;

  public ExecWorkload(Runner runner) {
    this.runner = runner;
  }

  /** For the master: validates and merges, never runs anything. */
  public static ExecWorkload definitionOnly() {
    return new ExecWorkload((command, hasInput, start, end) -> {
      throw new IllegalStateException("exec programs run on workers, not here");
    });
  }

  @Override
  public String name() {
    return "exec";
  }

  @Override
  public String summary() {
    return "run a program per piece with {start} {end} {count} placeholders; params: command, and either"
        + " from/to (index range) or file (streamed to stdin, line-aligned)";
  }

  @Override
  public String inputParam() {
    return "file";
  }

  @Override
  public UnitRange range(Map<String, String> params, InputSource input) {
    Params p = new Params(name(), params);
    p.onlyKnown("command", "from", "to", "file");
    command(params);
    if (input != null) {
      if (params.containsKey("from") || params.containsKey("to")) {
        throw new IllegalArgumentException("exec: give either 'file' or 'from'/'to', not both");
      }
      return new UnitRange(0, input.size());
    }
    long from = p.longValue("from", 0);
    long to = p.longValue("to");
    if (to <= from || from < 0) {
      throw new IllegalArgumentException("exec: need 0 <= from < to, got from=" + from + " to=" + to);
    }
    return new UnitRange(from, to);
  }

  @Override
  public long align(long position, InputSource input) {
    return LineCuts.nextLineStart(position, input);
  }

  @Override
  public boolean splittable() {
    return false;
  }

  @Override
  public ChunkComputation open(Map<String, String> params, long start, long end) {
    return runner.open(command(params), params.containsKey("file"), start, end);
  }

  /** The command split into words (whitespace-separated; single or double quotes group words). */
  public static List<String> command(Map<String, String> params) {
    String command = new Params("exec", params).string("command");
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (int i = 0; i < command.length(); i++) {
      char c = command.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (quote != 0) {
      throw new IllegalArgumentException("exec: unbalanced quote in command: " + command);
    }
    if (inWord) {
      words.add(word.toString());
    }
    if (words.isEmpty()) {
      throw new IllegalArgumentException("exec: 'command' is empty");
    }
    return words;
  }

  /** Replaces the placeholders of one word. */
  public static String expand(String word, long start, long end) {
    return word.replace("{start}", Long.toString(start))
        .replace("{end}", Long.toString(end))
        .replace("{count}", Long.toString(end - start));
  }

  @Override
  public byte[] empty() {
    return new byte[0];
  }

  @Override
  public byte[] merge(byte[] left, byte[] right) {
    byte[] out = new byte[Math.addExact(left.length, right.length)];
    System.arraycopy(left, 0, out, 0, left.length);
    System.arraycopy(right, 0, out, left.length, right.length);
    return out;
  }

  @Override
  public String render(byte[] result) {
    return new String(result, StandardCharsets.UTF_8);
  }
}
