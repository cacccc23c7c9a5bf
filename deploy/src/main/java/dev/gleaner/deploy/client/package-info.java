/**
 * The client side of a master's port: {@link dev.gleaner.deploy.client.MasterClient}, a blocking client that logs
 * in (token or shared secret, over TLS or not) and asks one thing at a time; {@link
 * dev.gleaner.deploy.client.StatusView}, which shows what the master answers to people (tables, progress bars) and
 * to programs (JSON); and {@link dev.gleaner.deploy.client.TextSink}, which writes a streamed result to a command's
 * output as text.
 *
 * <p>It imports the protocol, the master's status maps (so that the JSON of {@code gleaner status} is the master's
 * own) and, of this module, the formats alone.
 */
package dev.gleaner.deploy.client;
