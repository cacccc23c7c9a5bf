/**
 * The master daemon: a thin body around the controller of {@code common.control}.
 *
 * <ul>
 *   <li>{@link dev.gleaner.master.MasterServer} wires it: the store, the control loop, the status,
 *       the port; {@link dev.gleaner.master.FaultFile} injects faults for chaos runs.
 *   <li>{@code net}: Netty on one TCP port; a worker's frames become control-loop events, the
 *       loop's actions go out as frames through the worker's session and the one port.
 *   <li>{@code web}: the read-only web page, the JSON of {@code /api/status} and of the jobs' API, and a
 *       job's fields as people write them, served by {@code net}.
 *   <li>{@code status}: the status replies, the web page's figures and the forecasts, read on the
 *       control thread.
 *   <li>{@code loop}: the control loop runs the controller on one thread, feeds it, and carries
 *       out its actions; jobs are validated, stored and resumed here.
 *   <li>{@code auth}: credentials, tokens and revocations, and the one owner check of a job.
 *   <li>{@code store}: SQLite; every piece is durable before it is acknowledged.
 *   <li>{@code metrics}: Micrometer meters.
 * </ul>
 *
 * <p>Arrows point one way: {@code net -> web -> status -> loop -> auth -> store, metrics}.
 */
package dev.gleaner.master;
