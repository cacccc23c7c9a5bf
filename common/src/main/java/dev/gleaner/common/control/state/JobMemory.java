package dev.gleaner.common.control.state;

import dev.gleaner.common.recovery.RecoveryPlans;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a job's controller state must keep across a master restart, as two texts a body stores:
 * its plan (how many plans so far, the recovery scheme's members in order, each unit's home on
 * their lists) and its verification (units picked and verified, checks waiting or under way, the
 * mismatches noted). A restarted master that gives them back to the controller with the job keeps the
 * same recovery lists and checks what it had picked; without them, it plans afresh.
 *
 * <p>The texts are lines of space-separated words, ids and messages percent-encoded ({@code ~}: none).
 */
public final class JobMemory {
  private JobMemory() {}

  /** The job's plan memory, or null if it has not been planned. */
  public static String plan(JobLedger j) {
    if (j.replans < 0) {
      return null;
    }
    StringBuilder b = new StringBuilder();
    b.append("replans ").append(j.replans).append('\n');
    b.append("members");
    for (String m : j.members) {
      b.append(' ').append(enc(m));
    }
    b.append('\n');
    for (Homes.Part p : j.homes.all()) {
      b.append("home ").append(p.from()).append(' ').append(p.to()).append(' ').append(enc(p.home())).append('\n');
    }
    return b.toString();
  }

  /** What tells that the plan memory changed. */
  public static long planVersion(JobLedger j) {
    return Objects.hash(j.replans, j.members.size(), j.homes.changes());
  }

  /** The job's verification memory, or null for a job that checks nothing. */
  public static String checks(JobLedger j) {
    if (j.def.verify() <= 0) {
      return null;
    }
    StringBuilder b = new StringBuilder();
    b.append("selected ").append(j.checkedSelected).append('\n');
    b.append("verified ").append(j.verified).append('\n');
    // checks under way (out on a worker, or being compared) go back to the queue: their chunks end
    // with the master
    for (Chunk c : j.chunks.values()) {
      if (c.check != null) {
        check(b, c.check);
      }
    }
    for (JobLedger.Check k : j.checking.values()) {
      check(b, k);
    }
    for (JobLedger.Check k : j.checks) {
      check(b, k);
    }
    for (String m : j.mismatches) {
      b.append("mismatch ").append(enc(m)).append('\n');
    }
    return b.toString();
  }

  /** What tells that the verification memory changed. */
  public static long checksVersion(JobLedger j) {
    return Objects.hash(j.checkedSelected, j.verified, j.checks.size(), j.checking.size(), j.mismatches.size(),
        j.checks.peekFirst(), j.checks.peekLast());
  }

  private static void check(StringBuilder b, JobLedger.Check k) {
    b.append("check ").append(k.start()).append(' ').append(k.end()).append(' ').append(enc(k.committer()))
        .append(' ').append(k.dissenter() == null ? "~" : enc(k.dissenter()));
    for (String x : k.excluded()) {
      b.append(' ').append(enc(x));
    }
    b.append('\n');
  }

  /** Puts the memories back into a new ledger; a text that does not parse is an IllegalArgumentException. */
  public static void restore(JobLedger j, String plan, String checks) {
    try {
      parse(j, plan, checks);
    } catch (RuntimeException e) {
      // an unknown line, a bad number, a missing word: one message with the job's id
      throw new IllegalArgumentException("job " + j.def.id() + ": its memory does not parse: " + e.getMessage(), e);
    }
  }

  private static void parse(JobLedger j, String plan, String checks) {
    if (plan != null && !plan.isBlank()) {
      int replans = -1;
      List<String> members = List.of();
      for (String line : plan.split("\n")) {
        String[] w = line.split(" ");
        switch (w[0]) {
          case "replans" -> replans = Integer.parseInt(w[1]);
          case "members" -> {
            List<String> m = new ArrayList<>();
            for (int i = 1; i < w.length; i++) {
              m.add(dec(w[i]));
            }
            members = List.copyOf(m);
          }
          case "home" -> j.homes.assign(Long.parseLong(w[1]), Long.parseLong(w[2]), dec(w[3]));
          default -> throw new IllegalArgumentException("a plan memory line '" + line + "'");
        }
      }
      j.replans = replans;
      j.members = members;
      j.scheme = members.size() < 2 ? null : RecoveryPlans.forWorkers(members.size());
    }
    if (checks != null && !checks.isBlank()) {
      for (String line : checks.split("\n")) {
        String[] w = line.split(" ");
        switch (w[0]) {
          case "selected" -> j.checkedSelected = Long.parseLong(w[1]);
          case "verified" -> j.verified = Long.parseLong(w[1]);
          case "check" -> {
            Set<String> excluded = new HashSet<>();
            for (int i = 5; i < w.length; i++) {
              excluded.add(dec(w[i]));
            }
            j.checks.addLast(new JobLedger.Check(Long.parseLong(w[1]), Long.parseLong(w[2]), Set.copyOf(excluded),
                dec(w[3]), w[4].equals("~") ? null : dec(w[4])));
          }
          case "mismatch" -> j.mismatches.add(dec(w[1]));
          default -> throw new IllegalArgumentException("a verification memory line '" + line + "'");
        }
      }
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private static String dec(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }
}
