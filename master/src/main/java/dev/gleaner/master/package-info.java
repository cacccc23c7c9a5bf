/**
 * The master daemon: a thin body around the controller of {@code common.control}.
 *
 * <ul>
 *   <li>{@link dev.gleaner.master.MasterServer} wires it: the store, the control loop, the port.
 *   <li>{@code net}: Netty on one TCP port; a worker's frames become control-loop events, the
 *       loop's actions go out through the worker's session and the one port.
 *   <li>{@code control}: the control loop runs the controller on one thread, feeds it, and carries
 *       out its actions; jobs are validated, stored and resumed here.
 *   <li>{@code store}: SQLite; every piece is durable before it is acknowledged.
 *   <li>{@code metrics}: Micrometer meters.
 *   <li>{@code web}: the read-only web page and the JSON of {@code /api/status}, served by {@code net}.
 * </ul>
 *
 * <p>Arrows point one way: {@code net -> web -> control -> store, metrics} (and {@code net -> control}).
 */
package dev.gleaner.master;
