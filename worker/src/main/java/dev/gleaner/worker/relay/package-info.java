/**
 * {@code gleaner relay}: a daemon between the master and workers (paper 002's inner node). It logs
 * in upward on a session of its own and passes each connection of a peer below it up as a
 * connection of its own, behind a Via, byte for byte: logins pass through (it holds no key), the
 * master's store stays the only record, and a relay that dies loses nothing but connections.
 */
package dev.gleaner.worker.relay;
