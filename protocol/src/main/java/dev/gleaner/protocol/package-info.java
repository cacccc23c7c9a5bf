/**
 * The Gleaner wire: generated message classes (from {@code gleaner.proto}), the frame codec that
 * puts one {@link dev.gleaner.protocol.Envelope} in each length-prefixed frame, the challenge/response
 * authentication on a shared secret, and small helpers to build common messages. Master, worker and
 * client all speak through this package and nothing else.
 */
package dev.gleaner.protocol;
