/**
 * The Gleaner wire: generated message classes (from {@code gleaner.proto}), the frame codec that
 * puts one {@link dev.gleaner.protocol.Envelope} in each length-prefixed frame, the challenge/response
 * authentication (on the shared secret or a per-role, per-id token), token files, and small helpers
 * to build common messages. Master, worker and client all speak through this package and nothing
 * else; {@code tls} holds what they need to speak it inside TLS.
 */
package dev.gleaner.protocol;
