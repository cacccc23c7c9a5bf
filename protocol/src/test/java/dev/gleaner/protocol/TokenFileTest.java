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
  void aLaterGenerationReadsBackAndDiffersFromTheFirst() {
    PeerCredential t = PeerCredential.token(Role.OPERATOR, "root", Auth.token(KEY, Role.OPERATOR, "root", 2), 2);
    String text = TokenFile.format(t);
    assertTrue(text.contains("generation=2\n"), text);
    PeerCredential back = TokenFile.parse(text, "t");
    assertEquals(Role.OPERATOR, back.role());
    assertEquals(2, back.generation());
    assertArrayEquals(t.key(), back.key());
    assertFalse(TokenFile.format(PeerCredential.token(Role.WORKER, "a", Auth.token(KEY, Role.WORKER, "a")))
        .contains("generation="), "a first-generation file reads as before generations existed");
  }

  @Test
  void noIdMakesOneGenerationsTokenAnothers() {
    // "worker#1:a" is the text of worker a's generation 1; worker "#1:a" or "a" of generation 0 is not it
    byte[] first = Auth.token(KEY, Role.WORKER, "a", 1);
    assertFalse(Arrays.equals(first, Auth.token(KEY, Role.WORKER, "a", 0)));
    assertFalse(Arrays.equals(first, Auth.token(KEY, Role.WORKER, "#1:a", 0)));
    assertFalse(Arrays.equals(first, Auth.token(KEY, Role.WORKER, "1:a", 0)));
    assertFalse(Arrays.equals(Auth.token(KEY, Role.WORKER, "a", 11), Auth.token(KEY, Role.WORKER, "1:a", 1)));
    assertEquals(Auth.token(KEY, Role.WORKER, "a").length, first.length);
  }

  @Test
  void tokensDifferByRoleIdAndKey() {
    byte[] a = Auth.token(KEY, Role.WORKER, "a");
    assertFalse(Arrays.equals(a, Auth.token(KEY, Role.WORKER, "b")));
    assertFalse(Arrays.equals(a, Auth.token(KEY, Role.CLIENT, "a")));
    assertFalse(Arrays.equals(Auth.token(KEY, Role.CLIENT, "a"), Auth.token(KEY, Role.OPERATOR, "a")));
    assertFalse(Arrays.equals(a, Auth.token("another-key-0123456789".getBytes(StandardCharsets.UTF_8), Role.WORKER, "a")));
  }

  @Test
  void aFileThatIsNoTokenIsOneLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("role=worker\nid=a\n", "f"));
    assertTrue(e.getMessage().contains("no token="), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("role=admin\nid=a\ntoken=AAAA\n", "f"));
    assertTrue(e.getMessage().contains("worker, client, operator or relay"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("role=worker\nid=a\ntoken=" + "A".repeat(44)
        + "\nexpires=2027\n", "f"));
    assertTrue(e.getMessage().contains("unknown key 'expires'"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("role=worker\nid=a\ntoken=" + "A".repeat(44)
        + "\ngeneration=-1\n", "f"));
    assertTrue(e.getMessage().contains("generation= is a whole number of 0 or more"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> TokenFile.parse("some secret text", "f"));
    assertTrue(e.getMessage().contains("not a token file"), e.getMessage());
  }
}
