/**
 * The commands that try gleaner on this machine, measure it, and plan with its models: {@code gleaner demo},
 * {@code bench} (and {@code bench driver}), {@code chaos}, {@code recovery}, {@code plan}, {@code simulate} (with
 * {@code simulate --trace}, {@link dev.gleaner.deploy.command.tool.TraceRun}), {@code trace} and {@code replay}, one
 * class a command, with the options {@code plan} and {@code simulate} share and the charts {@code plan} and {@code
 * recovery} draw.
 *
 * <p>Commands: they may use every package below them (the benches, the chaos suite, the weekend's replay, the
 * launchers, the client, the formats) and the client options of {@code dev.gleaner.deploy.command}; nothing below
 * imports them, and neither {@code dev.gleaner.deploy.command} nor {@code command.cluster} knows them.
 */
package dev.gleaner.deploy.command.tool;
