/**
 * Who may log in and what each may do: the master's credentials ({@link dev.gleaner.master.auth.MasterAuth}:
 * the shared secret, the cluster key for per-role tokens), the check of a peer's answer to its
 * challenge and of a web page's credential ({@link dev.gleaner.master.auth.PeerAuthenticator}),
 * revoked token ids ({@link dev.gleaner.master.auth.Revocations}) and the live sessions a
 * revocation closes ({@link dev.gleaner.master.auth.TokenSessions}), and the one owner check of a
 * job's readers and changers ({@link dev.gleaner.master.auth.Caller#refusal}).
 */
package dev.gleaner.master.auth;
