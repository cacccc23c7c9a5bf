package dev.gleaner.worker;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.ExecWorkload;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code exec} pieces as real processes, only for programs on the allow-list this worker was
 * started with ({@code --allow-exec}), compared by real path ({@link ExecAllowList}). stdout is the result, up to the
 * master's limit for one piece ({@code --max-result-mib}, told by {@link ChunkComputation#limitResult}); a
 * non-zero exit fails the chunk with the program's last lines of stderr.
 */
final class ProcessExecRunner implements ExecWorkload.Runner {
  /**
   * The most stdout this worker buffers, whatever the master takes: a quarter of its heap (a buffer
   * that doubles as it grows, then the result's copies on its way out) and what a byte array holds.
   */
  static long heapCap() {
    return Math.min(Integer.MAX_VALUE - 8, Runtime.getRuntime().maxMemory() / 4);
  }
  /** Characters of a failed program's stderr its error shows: the last ones. */
  static final int STDERR_TAIL = 4096;

  private final ExecAllowList allowed;
  /** Where the programs run: a job's relative paths are found there. */
  private final java.io.File directory;

  ProcessExecRunner(ExecAllowList allowed, java.nio.file.Path directory) {
    this.allowed = allowed;
    this.directory = directory.toFile();
  }

  @Override
  public ChunkComputation open(List<String> template, boolean hasInput, long start, long end) {
    // the file that runs is the one whose real path was checked, wherever a later PATH would look
    String program = allowed.check(template.get(0)).toString();
    return new ChunkComputation() {
      private Process process;
      private Thread stdoutReader;
      private Thread stderrReader;
      private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
      // only its end is shown: a program that writes gigabytes of it must not fill the heap
      private final Tail stderr = new Tail(4 * STDERR_TAIL);
      private WritableByteChannel stdin;
      private List<String> command;
      private Cancellation cancel = Cancellation.NEVER;
      private long maxOutput = ChunkRunner.DEFAULT_MAX_RESULT_BYTES;

      @Override
      public void limitResult(long maxBytes) {
        maxOutput = maxBytes;
      }

      /** The most stdout a piece buffers: the master's limit, within this worker's heap. */
      private long cap() {
        return Math.min(maxOutput, heapCap());
      }

      @Override
      public void beginPiece(long from, long to) {
        command = new ArrayList<>();
        command.add(program);
        for (String w : template.subList(1, template.size())) {
          command.add(ExecWorkload.expand(w, from, to));
        }
        try {
          process = new ProcessBuilder(command).directory(directory).start();
        } catch (IOException e) {
          throw new IllegalArgumentException("exec: cannot start " + command.get(0) + ": " + e.getMessage(), e);
        }
        stdout.reset();
        stderr.reset();
        // one byte past the limit is kept: enough to tell a result over it from one at it
        int max = (int) (cap() + 1);
        stdoutReader = pump(process.getInputStream(), (buf, n) -> {
          synchronized (stdout) {
            if (stdout.size() < max) {
              stdout.write(buf, 0, Math.min(n, max - stdout.size()));
            }
          }
        }, "stdout");
        stderrReader = pump(process.getErrorStream(), stderr::write, "stderr");
        if (hasInput) {
          stdin = Channels.newChannel(process.getOutputStream());
        } else {
          closeStdin();
        }
      }

      @Override
      public void compute(long from, long to, ByteBuffer input, Cancellation c) throws IOException {
        cancel = c;
        if (input != null) {
          try {
            while (input.hasRemaining()) {
              stdin.write(input);
            }
          } catch (IOException e) {
            // the program stopped reading; its exit status will tell why
            input.position(input.limit());
          }
        }
      }

      @Override
      public byte[] take() {
        if (stdin != null) {
          try {
            stdin.close();
          } catch (IOException ignored) {
            // a program that exited early closed its stdin already; its exit status says the rest
          }
          stdin = null;
        }
        try {
          while (!process.waitFor(100, TimeUnit.MILLISECONDS)) {
            if (cancel.cancelled()) {
              process.destroyForcibly();
              throw new CancellationException("exec piece cancelled");
            }
          }
          stdoutReader.join();
          stderrReader.join();
        } catch (InterruptedException e) {
          process.destroyForcibly();
          Thread.currentThread().interrupt();
          throw new CancellationException("interrupted");
        }
        long cap = cap();
        if (stdout.size() > cap) {
          throw new ProgramFailure("exec: " + command.get(0) + " wrote more than " + cap + " bytes to stdout, "
              + (cap < maxOutput ? "more than this worker's heap holds (the master takes up to " + maxOutput
                  + "; give the worker a larger -Xmx in JAVA_OPTS)" : "over the master's limit for one piece"
                  + " (gleaner master --max-result-mib)") + "; give the job smaller chunks or more checkpoints");
        }
        int code = process.exitValue();
        if (code != 0) {
          String err = stderr.text();
          if (err.length() > STDERR_TAIL || stderr.dropped()) {
            err = "..." + err.substring(Math.max(0, err.length() - STDERR_TAIL));
          }
          throw new ProgramFailure("exec: " + String.join(" ", command) + " exited with status " + code
              + (err.isBlank() ? "" : ": " + err.strip()));
        }
        return stdout.toByteArray();
      }

      private void closeStdin() {
        try {
          process.getOutputStream().close();
        } catch (IOException ignored) {
          // nothing to tell: the program has no input
        }
      }

      @Override
      public void close() {
        if (process != null && process.isAlive()) {
          process.destroyForcibly();
        }
      }
    };
  }

  /** Where a pump puts what it read: the first {@code n} bytes of {@code buf}. */
  interface Sink {
    void write(byte[] buf, int n);
  }

  /** Reads the stream to its end into the sink (which keeps what it wants), on a thread of its own. */
  private static Thread pump(InputStream in, Sink out, String name) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[64 * 1024];
      try (in) {
        int n;
        while ((n = in.read(buf)) >= 0) {
          out.write(buf, n);
        }
      } catch (IOException ignored) {
        // the process ended; what was read is kept
      }
    }, "gleaner-exec-" + name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** The last {@code capacity} bytes written to it, and whether any were dropped before them. */
  static final class Tail {
    private final byte[] ring;
    private long written;

    Tail(int capacity) {
      ring = new byte[capacity];
    }

    synchronized void write(byte[] buf, int n) {
      // of more than it keeps, only the end: the rest counts as written, and dropped
      int from = Math.max(0, n - ring.length);
      written += from;
      for (int i = from; i < n; i++) {
        ring[(int) (written % ring.length)] = buf[i];
        written++;
      }
    }

    synchronized void reset() {
      written = 0;
    }

    /** Whether more was written than it keeps. */
    synchronized boolean dropped() {
      return written > ring.length;
    }

    /** What it keeps, decoded as UTF-8 (a character cut at its start shows as a replacement). */
    synchronized String text() {
      int size = (int) Math.min(written, ring.length);
      byte[] out = new byte[size];
      int start = (int) ((written - size) % ring.length);
      for (int i = 0; i < size; i++) {
        out[i] = ring[(start + i) % ring.length];
      }
      return new String(out, StandardCharsets.UTF_8);
    }
  }
}
