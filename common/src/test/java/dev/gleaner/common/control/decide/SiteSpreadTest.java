package dev.gleaner.common.control.decide;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.gleaner.common.recovery.RecoveryPlans;
import dev.gleaner.common.recovery.RecoveryScheme;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The recovery scheme's order of workers behind relays: each worker's first successor outside its
 * relay's subtree wherever some order allows it, checked against every order of small jobs; the
 * workers all kept, each once; and no relay, no change.
 */
class SiteSpreadTest {
  /** Workers whose first successor shares their site, in this order. */
  private static int firstClashes(List<String> order, Map<String, String> relayOf, RecoveryScheme scheme) {
    int n = 0;
    for (int i = 0; i < order.size(); i++) {
      if (site(order.get(i), relayOf).equals(site(order.get(scheme.at(i, 0)), relayOf))) {
        n++;
      }
    }
    return n;
  }

  private static String site(String id, Map<String, String> relayOf) {
    String r = relayOf.getOrDefault(id, "");
    return r.isEmpty() ? "direct " + id : r;
  }

  /** The fewest first-successor clashes of any order (every permutation). */
  private static int bruteForce(List<String> ids, Map<String, String> relayOf, RecoveryScheme scheme) {
    int[] best = {Integer.MAX_VALUE};
    permute(new ArrayList<>(ids), 0, p -> best[0] = Math.min(best[0], firstClashes(p, relayOf, scheme)));
    return best[0];
  }

  private static void permute(List<String> a, int k, java.util.function.Consumer<List<String>> each) {
    if (k == a.size()) {
      each.accept(a);
      return;
    }
    for (int i = k; i < a.size(); i++) {
      java.util.Collections.swap(a, k, i);
      permute(a, k + 1, each);
      java.util.Collections.swap(a, k, i);
    }
  }

  @Test
  void firstSuccessorsLeaveTheSubtreeWheneverSomeOrderLetsThem() {
    Random random = new Random(37);
    for (int trial = 0; trial < 300; trial++) {
      int n = 3 + random.nextInt(6);
      List<String> ids = new ArrayList<>();
      Map<String, String> relayOf = new HashMap<>();
      int relays = 1 + random.nextInt(3);
      for (int i = 0; i < n; i++) {
        String id = "w" + i;
        ids.add(id);
        int r = random.nextInt(relays + 1);
        if (r > 0) {
          relayOf.put(id, "r" + r);
        }
      }
      RecoveryScheme scheme = RecoveryPlans.forWorkers(n);
      List<String> order = SiteSpread.order(ids, relayOf, scheme);
      assertEquals(new HashSet<>(ids), new HashSet<>(order), "every worker, once");
      assertEquals(n, order.size());
      if (relayOf.isEmpty()) {
        assertEquals(ids, order);
        continue;
      }
      assertEquals(bruteForce(ids, relayOf, scheme), firstClashes(order, relayOf, scheme),
          "trial " + trial + ": " + relayOf + " in " + order + " (" + scheme.name() + ")");
    }
  }

  @Test
  void twoSitesOfThreeLeadOutOfEachOther() {
    List<String> ids = List.of("a1", "a2", "a3", "b1", "b2", "b3");
    Map<String, String> relayOf = Map.of("a1", "A", "a2", "A", "a3", "A", "b1", "B", "b2", "B", "b3", "B");
    RecoveryScheme scheme = RecoveryPlans.forWorkers(6);
    List<String> order = SiteSpread.order(ids, relayOf, scheme);
    for (int i = 0; i < 6; i++) {
      assertNotEquals(relayOf.get(order.get(i)), relayOf.get(order.get(scheme.at(i, 0))), order.toString());
    }
    // the plan's order, a site's workers back to back, leads most of them into their own site
    assertNotEquals(0, firstClashes(ids, relayOf, scheme));
  }

  @Test
  void withNoRelayTheOrderStays() {
    List<String> ids = List.of("a", "b", "c", "d");
    assertEquals(ids, SiteSpread.order(ids, Map.of(), RecoveryPlans.forWorkers(4)));
    assertEquals(List.of("a1", "b1", "c", "a2", "b2"), SiteSpread.dealt(List.of("a1", "a2", "b1", "b2", "c"),
        Map.of("a1", "A", "a2", "A", "b1", "B", "b2", "B")));
  }
}
