package dev.gleaner.master.store;

import dev.gleaner.master.store.Store.Op;
import java.util.LinkedHashMap;
import java.util.Map;

/** The operations on the {@code shares} table: owners' weights in the fair share of the workers. */
public final class ShareTable {
  private ShareTable() {}

  /** Sets the owner's weight (0: removes it, the owner weighs 1 again); returns every weight set, by owner. */
  public static Op<Map<String, Double>> set(String owner, double weight) {
    return c -> {
      if (weight == 0) {
        c.update("DELETE FROM shares WHERE owner=?", owner);
      } else {
        c.update("INSERT INTO shares(owner, weight) VALUES (?,?) ON CONFLICT(owner) DO UPDATE SET"
            + " weight=excluded.weight", owner, weight);
      }
      return all().run(c);
    };
  }

  /** Every weight set, by owner. */
  public static Op<Map<String, Double>> all() {
    return c -> {
      Map<String, Double> m = new LinkedHashMap<>();
      for (Object[] row : c.query("SELECT owner, weight FROM shares ORDER BY owner",
          r -> new Object[] {r.getString(1), r.getDouble(2)})) {
        m.put((String) row[0], (Double) row[1]);
      }
      return m;
    };
  }
}
