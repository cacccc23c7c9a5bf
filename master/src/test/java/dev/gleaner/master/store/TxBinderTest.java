package dev.gleaner.master.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SQL binder of {@link Store.Tx}: values bound by their runtime type, statements prepared once. */
class TxBinderTest {
  @TempDir
  Path dir;
  private Connection connection;
  private Store.Tx tx;

  @BeforeEach
  void open() throws SQLException {
    connection = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("binder.db"));
    // a column without a type keeps each value in the storage class it was bound with
    connection.createStatement().execute("CREATE TABLE t(k TEXT, v)");
    tx = new Store.Tx(connection);
  }

  @AfterEach
  void close() throws SQLException {
    tx.reset();
    connection.close();
  }

  private record Stored(String type, Object value) {}

  private Stored stored(String key) throws SQLException {
    return tx.one("SELECT typeof(v), v FROM t WHERE k=?", r -> new Stored(r.getString(1), r.getObject(2)), key);
  }

  @Test
  void eachValueIsBoundAsItsRuntimeTypeSays() throws SQLException {
    String insert = "INSERT INTO t(k, v) VALUES (?, ?)";
    assertEquals(1, tx.update(insert, "string", "GATTACA"));
    tx.update(insert, "long", 1L << 40);
    tx.update(insert, "int", 7);
    tx.update(insert, "true", true);
    tx.update(insert, "false", false);
    tx.update(insert, "bytes", new byte[] {1, 2, 3});
    tx.update(insert, "null", null);
    assertEquals(new Stored("text", "GATTACA"), stored("string"));
    assertEquals(new Stored("integer", 1L << 40), stored("long"));
    assertEquals(new Stored("integer", 7), stored("int"));
    assertEquals(new Stored("integer", 1), stored("true"));
    assertEquals(new Stored("integer", 0), stored("false"));
    assertEquals("blob", stored("bytes").type());
    assertArrayEquals(new byte[] {1, 2, 3}, tx.one("SELECT v FROM t WHERE k=?", r -> r.getBytes(1), "bytes"));
    assertEquals(new Stored("null", null), stored("null"));
    // a lone null, which Java passes as no array at all, is one NULL value too
    tx.update("INSERT INTO t(k, v) VALUES ('lone', ?)", (Object[]) null);
    assertEquals(new Stored("null", null), stored("lone"));
  }

  @Test
  void aStatementIsPreparedOnceAndKeepsNoValueFromItsLastUse() throws SQLException {
    String insert = "INSERT INTO t(k, v) VALUES (?, ?)";
    tx.update(insert, "first", 42L);
    tx.update(insert, "second", null);
    assertSame(tx.prepare(insert), tx.prepare(insert));
    assertEquals(new Stored("null", null), stored("second"), "the NULL is bound, not the value the statement had");
    assertEquals(List.of("first", "second"), tx.query("SELECT k FROM t ORDER BY rowid", r -> r.getString(1)));
    assertNull(tx.one("SELECT k FROM t WHERE k=?", r -> r.getString(1), "third"), "no row: null");
    tx.unbind();
    assertEquals(List.of(42L), tx.query("SELECT v FROM t WHERE k=?", r -> r.getLong(1), "first"));
  }

  @Test
  void valuesOfAnotherTypeOrCountAreRefusedByName() {
    String insert = "INSERT INTO t(k, v) VALUES (?, ?)";
    IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
        () -> tx.update(insert, "date", java.time.Instant.EPOCH));
    assertTrue(type.getMessage().startsWith("value 2 is a java.time.Instant, which the store does not bind"),
        type.getMessage());
    IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> tx.update(insert, "one"));
    assertEquals("the statement takes 2 values, given 1: " + insert, count.getMessage());
  }
}
