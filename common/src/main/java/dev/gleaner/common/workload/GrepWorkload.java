package dev.gleaner.common.workload;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code grep}: counts the lines of a text (or FASTA) file that match a pattern and keeps the first
 * {@code max-lines} of them. The file lives on the master and is streamed to workers in
 * line-aligned byte ranges; one unit is one byte.
 */
public final class GrepWorkload implements Workload {
  static final int DEFAULT_MAX_LINES = 1000;

  @Override
  public String name() {
    return "grep";
  }

  @Override
  public String summary() {
    return "count lines matching a pattern in a file on the master; params: file, pattern, regex (false),"
        + " ignore-case (false), max-lines (" + DEFAULT_MAX_LINES + ")";
  }

  @Override
  public String inputParam() {
    return "file";
  }

  @Override
  public UnitRange range(Map<String, String> params, InputSource input) {
    matcher(params);
    return new UnitRange(0, input.size());
  }

  private static Predicate<String> matcher(Map<String, String> params) {
    Params p = new Params("grep", params);
    p.onlyKnown("file", "pattern", "regex", "ignore-case", "max-lines");
    String pattern = p.string("pattern");
    boolean regex = p.bool("regex", false);
    boolean ignoreCase = p.bool("ignore-case", false);
    long max = p.longValue("max-lines", DEFAULT_MAX_LINES);
    if (max < 0 || max > 1_000_000) {
      throw new IllegalArgumentException("grep: 'max-lines' must be within 0..1000000, got " + max);
    }
    if (!regex && !ignoreCase) {
      return line -> line.contains(pattern);
    }
    try {
      Pattern compiled = Pattern.compile(regex ? pattern : Pattern.quote(pattern),
          ignoreCase ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
      return line -> compiled.matcher(line).find();
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException("grep: 'pattern' is not a valid regular expression: " + e.getDescription(), e);
    }
  }

  @Override
  public long align(long position, InputSource input) {
    return LineCuts.nextLineStart(position, input);
  }

  @Override
  public ChunkComputation open(Map<String, String> params, long start, long end) {
    Predicate<String> matches = matcher(params);
    int limit = (int) new Params(name(), params).longValue("max-lines", DEFAULT_MAX_LINES);
    return new ChunkComputation() {
      private final java.io.ByteArrayOutputStream carry = new java.io.ByteArrayOutputStream();
      private long count;
      private List<String> lines = new ArrayList<>();

      @Override
      public void compute(long from, long to, ByteBuffer input, Cancellation cancel) {
        if (input == null || input.remaining() != to - from) {
          throw new IllegalArgumentException("grep: expected " + (to - from) + " bytes of input for ["
              + from + ", " + to + "), got " + (input == null ? "none" : input.remaining()));
        }
        while (input.hasRemaining()) {
          int lineStart = input.position();
          int nl = -1;
          for (int i = lineStart; i < input.limit(); i++) {
            if (input.get(i) == '\n') {
              nl = i;
              break;
            }
          }
          if (nl < 0) {
            byte[] rest = new byte[input.remaining()];
            input.get(rest);
            carry.writeBytes(rest);
            return;
          }
          byte[] bytes = new byte[nl - lineStart];
          input.get(bytes);
          input.get();
          if (carry.size() > 0) {
            carry.writeBytes(bytes);
            bytes = carry.toByteArray();
            carry.reset();
          }
          line(bytes);
        }
      }

      private void line(byte[] bytes) {
        int len = bytes.length;
        if (len > 0 && bytes[len - 1] == '\r') {
          len--;
        }
        String line = new String(bytes, 0, len, StandardCharsets.UTF_8);
        if (matches.test(line)) {
          count++;
          if (lines.size() < limit) {
            lines.add(line);
          }
        }
      }

      @Override
      public byte[] take() {
        if (carry.size() > 0) {
          line(carry.toByteArray());
          carry.reset();
        }
        byte[] r = new LinesResult(count, limit, lines).encode();
        count = 0;
        lines = new ArrayList<>();
        return r;
      }
    };
  }

  @Override
  public byte[] empty() {
    return new LinesResult(0, LinesResult.NO_LIMIT, List.of()).encode();
  }

  @Override
  public byte[] merge(byte[] left, byte[] right) {
    return LinesResult.merge(left, right);
  }

  @Override
  public String render(byte[] result) {
    LinesResult r = LinesResult.decode(result);
    StringBuilder sb = new StringBuilder().append(r.count()).append(" matching lines");
    for (String l : r.lines()) {
      sb.append('\n').append(l);
    }
    if (r.count() > r.lines().size()) {
      sb.append("\n... (").append(r.count() - r.lines().size()).append(" more)");
    }
    return sb.toString();
  }
}
