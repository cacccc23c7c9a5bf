package dev.gleaner.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class TokenFileTest {
  static final byte[] KEY = "a-cluster-key-of-enough-bytes".getBytes(StandardCharsets.UTF_8);

  @Test
  void aTokenFileReadsBackAsWritten() {
    PeerCredential t = PeerCredential.token(Role.WORKER, "node 7", Auth.token(KEY, Role.WORKER, "node 7"));
    PeerCredential back = TokenFile.parse(TokenFile.format(t), "t");
    assertEquals(Role.WORKER, back.role());
    assertEquals("node 7", back.id());
    assertArrayEquals(t.key(), back.key());
  }

  @Test
  void tokensDifferByRoleIdAndKey() {
    byte[] a = Auth.token(KEY, Role.WORKER, "a");
    assertFalse(Arrays.equals(a, Auth.token(KEY, Role.WORKER, "b")));
    assertFalse(Arrays.equals(a, Auth.token(KEY, Role.CLIENT, "a")));
    assertFalse(Arrays.equals(a, Auth.token("another-key-0123456789".getBytes(StandardCharsets.UTF_8), Role.WORKER, "a")));
  }

  @Test
  void aFileThatIsNoTokenIsOneLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("role=worker\nid=a\n", "f"));
    assertTrue(e.getMessage().contains("no token="), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("role=admin\nid=a\ntoken=AAAA\n", "f"));
    assertTrue(e.getMessage().contains("worker or client"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("some secret text", "f"));
    assertTrue(e.getMessage().contains("not a token file"), e.getMessage());
  }
}
