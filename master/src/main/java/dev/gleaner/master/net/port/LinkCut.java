package dev.gleaner.master.net.port;

/**
 * A link seen cut while a transfer crossed it: its worker's paces, a run of them far below what the
 * link was known to do, put it at {@code bytesPerSecond}, measured over {@code seconds}.
 */
public record LinkCut(double bytesPerSecond, double seconds) { }
