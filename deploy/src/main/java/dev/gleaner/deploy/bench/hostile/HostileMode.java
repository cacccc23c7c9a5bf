package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.chaos.HostilePeer.Attack;
import java.util.EnumMap;
import java.util.Map;

/**
 * One run of the hostile bench: clear text with the shared secret, or TLS with tokens (credentials
 * from {@code gleaner init}), and the attacks it is made of.
 */
enum HostileMode {
  /** A master in clear text taking a shared secret. */
  SECRET(false),
  /** A master speaking TLS only and taking tokens only. */
  TLS(true);

  final boolean tls;

  HostileMode(boolean tls) {
    this.tls = tls;
  }

  /** The share of the connections each attack gets in this mode. */
  Map<Attack, Double> mix() {
    Map<Attack, Double> m = new EnumMap<>(Attack.class);
    if (!tls) {
      m.put(Attack.IDLE, 0.02);
      m.put(Attack.HELLO_SILENCE, 0.01);
      m.put(Attack.HUGE_LENGTH, 0.14);
      m.put(Attack.GARBAGE, 0.15);
      m.put(Attack.FUZZED_HELLO, 0.30);
      m.put(Attack.WRONG_SECRET, 0.14);
      m.put(Attack.OVERSIZED_HELLO, 0.12);
      m.put(Attack.DUPLICATE_ID, 0.02);
      m.put(Attack.PER_ADDRESS, 0.10);
    } else {
      m.put(Attack.PLAIN_TO_TLS, 0.15);
      m.put(Attack.IDLE, 0.025);
      m.put(Attack.HUGE_LENGTH, 0.10);
      m.put(Attack.FUZZED_HELLO, 0.15);
      m.put(Attack.WORKER_TOKEN_AS_CLIENT, 0.15);
      m.put(Attack.CLIENT_TOKEN_AS_WORKER, 0.15);
      m.put(Attack.TAKEOVER, 0.15);
      m.put(Attack.SECRET_TO_TOKEN_MASTER, 0.075);
      m.put(Attack.OVERSIZED_HELLO, 0.05);
    }
    return m;
  }
}
