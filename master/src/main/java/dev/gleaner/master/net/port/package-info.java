/**
 * The master's one port: how chunk input streams to the workers ({@link
 * dev.gleaner.master.net.port.SendPort}), one stream at a time or as many as the measured egress
 * and links fit (the rule of {@code common.port}), each stream a file region or TLS slices, and
 * what each transfer says of its link when the worker reports its arrival.
 */
package dev.gleaner.master.net.port;
