/**
 * Gleaner's brain, free of I/O: the models of workers and platforms, the plans that say who
 * computes what, the workload SPI shared by master and worker, and time utilities. Nothing here
 * touches a socket, a file or a database, so every piece is testable as a pure function.
 */
package dev.gleaner.common;
