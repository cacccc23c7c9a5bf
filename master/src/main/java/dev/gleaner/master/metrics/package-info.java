/**
 * The master's meters (Micrometer): chunks, units, bytes streamed, failures, re-plans, heartbeat
 * lag and commit latency. {@code gleaner status} shows them. Internal to the master.
 */
package dev.gleaner.master.metrics;
