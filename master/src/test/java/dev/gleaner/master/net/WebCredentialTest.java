package dev.gleaner.master.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.auth.PeerAuthenticator;
import dev.gleaner.master.auth.Revocations;
import dev.gleaner.master.store.Store;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a browser from another address may show the web page: a client's or an operator's token of
 * the generation the master takes, or the shared secret.
 */
class WebCredentialTest {
  private static final byte[] KEY = "web-credential-cluster-key-012345".getBytes(StandardCharsets.UTF_8);
  /** Base64 text with a '+', as `head -c 32 /dev/urandom | base64` makes. */
  private static final byte[] SECRET = "ab+cdefghijklmnopqrstuvwxyz0123=".getBytes(StandardCharsets.UTF_8);

  private static final String NEITHER = "the credential is neither a client's or an operator's token of this cluster"
      + " (NAME:BASE64) nor its shared secret";

  @TempDir
  Path dir;
  Store store;
  Revocations revocations;

  @BeforeEach
  void open() {
    store = new Store(dir);
    revocations = new Revocations(store);
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static String token(Role role, String id) {
    return token(role, id, 0);
  }

  private static String token(Role role, String id, int generation) {
    return id + ":" + Base64.getEncoder().encodeToString(Auth.token(KEY, role, id, generation));
  }

  private PeerAuthenticator authenticator(MasterAuth auth) {
    return new PeerAuthenticator(auth, revocations);
  }

  @Test
  void clientTokensAndTheSharedSecretAreTakenAndNothingElse() {
    PeerAuthenticator both = authenticator(new MasterAuth(SECRET, KEY));
    assertNull(both.webRefusal(token(Role.CLIENT, "alice")));
    assertNull(both.webRefusal(token(Role.CLIENT, "team:ops")), "a name may hold a colon");
    assertNull(both.webRefusal(new String(SECRET, StandardCharsets.UTF_8)));
    // ?token= pasted unencoded: the query decoder reads '+' as a space
    assertNull(both.webRefusal(new String(SECRET, StandardCharsets.UTF_8).replace('+', ' ')));
    assertNull(both.webRefusal(token(Role.CLIENT, "alice").replace('+', ' ')));
    assertTrue(both.webRefusal(token(Role.WORKER, "w1")).contains("a worker token cannot read status"));
    String forged = "bob:" + token(Role.CLIENT, "alice").substring("alice:".length());
    assertEquals(NEITHER,
        both.webRefusal(forged));
    assertEquals(NEITHER,
        both.webRefusal("alice:not base64!"));
    assertTrue(both.webRefusal("").startsWith("no credential"));
    assertTrue(both.webRefusal(null).startsWith("no credential"));
  }

  @Test
  void aMasterTakesOnlyWhatItHas() {
    PeerAuthenticator tokensOnly = authenticator(MasterAuth.tokens(KEY));
    assertNull(tokensOnly.webRefusal(token(Role.CLIENT, "alice")));
    assertTrue(tokensOnly.webRefusal(new String(SECRET, StandardCharsets.UTF_8)).startsWith("the credential is neither"));
    PeerAuthenticator secretOnly = authenticator(MasterAuth.sharedSecret(SECRET));
    assertNull(secretOnly.webRefusal(new String(SECRET, StandardCharsets.UTF_8)));
    assertTrue(secretOnly.webRefusal(token(Role.CLIENT, "alice")).startsWith("the credential is neither"));
  }

  @Test
  void anOperatorsTokenReadsAndARevokedTokenIsRefusedUntilItsNextGeneration() {
    PeerAuthenticator tokens = authenticator(MasterAuth.tokens(KEY));
    assertNull(tokens.webRefusal(token(Role.OPERATOR, "root")));
    revocations.revoke(Role.CLIENT, "alice", Caller.operator("root"), "left", 1_000).join();
    String why = tokens.webRefusal(token(Role.CLIENT, "alice"));
    assertTrue(why != null && why.startsWith("the client token of 'alice' was revoked at 1970-01-01T00:00:01Z by operator"
        + " 'root' (left)"), why);
    assertNull(tokens.webRefusal(token(Role.CLIENT, "alice", 1)));
    assertNull(tokens.webRefusal(token(Role.CLIENT, "bob")), "other ids are untouched");
  }
}
