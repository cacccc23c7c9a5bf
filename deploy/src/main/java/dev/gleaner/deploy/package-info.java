/**
 * The distribution's entry point: {@link dev.gleaner.deploy.Gleaner}, the {@code gleaner} command, which builds the
 * subcommand a command line names and runs it. Everything else of this module lives in the packages below it, by
 * concern: the commands ({@code command}: the daemons and the client commands; {@code command.cluster}: many
 * computers at once; {@code command.tool}: demo, benchmarks, chaos, plans and traces), and what they run: the chaos
 * suite and the hostile bench ({@code chaos}), the end-to-end benches ({@code bench}), the weekend's traces and their
 * replay ({@code weekend}), the launchers of workers ({@code launch}), the client of a master's port ({@code client}),
 * what results are checked against ({@code audit}), and the formats people write ({@code format}). The client
 * commands' class-data archive ({@code cds}) is a second entry point, beside this one. Beside {@code Gleaner} lives
 * {@link dev.gleaner.deploy.CliReference}, which the build runs to write {@code docs/cli.md} from the same command
 * tree.
 *
 * <p>It imports the commands, and nothing imports it: the code that starts {@code gleaner} again from below names
 * it as a string ({@link dev.gleaner.deploy.launch.EntryPoint}), as the jar's manifest and the launcher do.
 */
package dev.gleaner.deploy;
