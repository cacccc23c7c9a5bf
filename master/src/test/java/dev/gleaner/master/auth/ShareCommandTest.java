package dev.gleaner.master.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.Tokens;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SetShare;
import dev.gleaner.protocol.Share;
import dev.gleaner.protocol.StatusRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator sets owners' weights in the fair share (`gleaner share`): a client may not, a name or
 * weight that is not one is refused in one line, the weights are stored and a restarted master
 * shows them in its status, and weight 0 takes an owner back to the default.
 */
class ShareCommandTest {
  private static final byte[] KEY = Tokens.CLUSTER_KEY;

  @TempDir
  Path dir;

  private static RawPeer as(MasterFixture master, Role role, String id) throws IOException {
    RawPeer p = new RawPeer(master.port);
    p.handshake(PeerCredential.token(role, id, Auth.token(KEY, role, id)), role, id, List.of(), 0);
    return p;
  }

  private static Envelope ask(RawPeer p, String owner, double weight) throws IOException {
    p.send(Envelope.newBuilder().setSetShare(SetShare.newBuilder().setOwner(owner).setWeight(weight)).build());
    Envelope reply = p.readSkippingHeartbeats(30_000);
    assertTrue(reply != null, "no answer");
    return reply;
  }

  private static List<Share> status(RawPeer p) throws IOException {
    p.send(Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
    Envelope reply = p.readSkippingHeartbeats(30_000);
    assertTrue(reply != null && reply.hasStatusReply(), String.valueOf(reply));
    return reply.getStatusReply().getSharesList();
  }

  private static Share share(String owner, double weight) {
    return Share.newBuilder().setOwner(owner).setWeight(weight).build();
  }

  @Test
  void anOperatorSetsSharesAClientMayNotAndTheyOutliveARestart() throws Exception {
    MasterFixture master = MasterFixture.start(dir, c -> c.withAuth(MasterAuth.tokens(KEY)));
    try (RawPeer bob = as(master, Role.CLIENT, "bob"); RawPeer root = as(master, Role.OPERATOR, "root")) {
      Envelope refused = ask(bob, "client:bob", 10);
      assertEquals(Error.Code.NOT_ALLOWED, refused.getError().getCode(), refused.toString());
      assertTrue(refused.getError().getMessage().startsWith("only an operator may set owners' shares"),
          refused.getError().getMessage());

      Envelope badName = ask(root, "alice", 2);
      assertEquals(Error.Code.UNEXPECTED_MESSAGE, badName.getError().getCode(), badName.toString());
      assertTrue(badName.getError().getMessage().contains("client:NAME or operator:NAME"));
      Envelope twoLines = ask(root, "client:a\nb", 2);
      assertTrue(twoLines.getError().getMessage().endsWith("not 'client:a?b'"), twoLines.toString());
      for (double w : new double[] {-1, 1e-9, 1e7, Double.NaN}) {
        Envelope badWeight = ask(root, "client:alice", w);
        assertEquals(Error.Code.UNEXPECTED_MESSAGE, badWeight.getError().getCode(), badWeight.toString());
        assertTrue(badWeight.getError().getMessage().startsWith("a share's weight is 0"), badWeight.toString());
      }

      Envelope set = ask(root, "client:alice", 3);
      assertEquals(List.of(share("client:alice", 3)), set.getSharesReply().getSharesList(), set.toString());
      set = ask(root, "operator:lab", 0.5);
      assertEquals(List.of(share("client:alice", 3), share("operator:lab", 0.5)),
          set.getSharesReply().getSharesList());
      assertEquals(List.of(share("client:alice", 3), share("operator:lab", 0.5)), status(bob));
    } finally {
      master.close();
    }
    MasterFixture again = MasterFixture.start(dir, c -> c.withAuth(MasterAuth.tokens(KEY)));
    try (RawPeer root = as(again, Role.OPERATOR, "root")) {
      assertEquals(List.of(share("client:alice", 3), share("operator:lab", 0.5)), status(root),
          "the weights a restarted master shares by");
      Envelope back = ask(root, "operator:lab", 0);
      assertEquals(List.of(share("client:alice", 3)), back.getSharesReply().getSharesList());
      assertEquals(List.of(share("client:alice", 3)), status(root));
    } finally {
      again.close();
    }
  }
}
