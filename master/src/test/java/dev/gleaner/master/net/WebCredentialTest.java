package dev.gleaner.master.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.MasterAuth;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** What a browser from another address may show the web page: a client token or the shared secret. */
class WebCredentialTest {
  private static final byte[] KEY = "web-credential-cluster-key-012345".getBytes(StandardCharsets.UTF_8);
  /** Base64 text with a '+', as `head -c 32 /dev/urandom | base64` makes. */
  private static final byte[] SECRET = "ab+cdefghijklmnopqrstuvwxyz0123=".getBytes(StandardCharsets.UTF_8);

  private static String token(Role role, String id) {
    return id + ":" + Base64.getEncoder().encodeToString(Auth.token(KEY, role, id));
  }

  @Test
  void clientTokensAndTheSharedSecretAreTakenAndNothingElse() {
    PeerAuthenticator both = new PeerAuthenticator(new MasterAuth(SECRET, KEY));
    assertNull(both.webRefusal(token(Role.CLIENT, "alice")));
    assertNull(both.webRefusal(token(Role.CLIENT, "team:ops")), "a name may hold a colon");
    assertNull(both.webRefusal(new String(SECRET, StandardCharsets.UTF_8)));
    // ?token= pasted unencoded: the query decoder reads '+' as a space
    assertNull(both.webRefusal(new String(SECRET, StandardCharsets.UTF_8).replace('+', ' ')));
    assertNull(both.webRefusal(token(Role.CLIENT, "alice").replace('+', ' ')));
    assertTrue(both.webRefusal(token(Role.WORKER, "w1")).contains("a worker token cannot read status"));
    String forged = "bob:" + token(Role.CLIENT, "alice").substring("alice:".length());
    assertEquals("the credential is neither a client token of this cluster (NAME:BASE64) nor its shared secret",
        both.webRefusal(forged));
    assertEquals("the credential is neither a client token of this cluster (NAME:BASE64) nor its shared secret",
        both.webRefusal("alice:not base64!"));
    assertTrue(both.webRefusal("").startsWith("no credential"));
    assertTrue(both.webRefusal(null).startsWith("no credential"));
  }

  @Test
  void aMasterTakesOnlyWhatItHas() {
    PeerAuthenticator tokensOnly = new PeerAuthenticator(MasterAuth.tokens(KEY));
    assertNull(tokensOnly.webRefusal(token(Role.CLIENT, "alice")));
    assertTrue(tokensOnly.webRefusal(new String(SECRET, StandardCharsets.UTF_8)).startsWith("the credential is neither"));
    PeerAuthenticator secretOnly = new PeerAuthenticator(MasterAuth.sharedSecret(SECRET));
    assertNull(secretOnly.webRefusal(new String(SECRET, StandardCharsets.UTF_8)));
    assertTrue(secretOnly.webRefusal(token(Role.CLIENT, "alice")).startsWith("the credential is neither"));
  }
}
