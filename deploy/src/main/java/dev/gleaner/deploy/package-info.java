/**
 * The distribution: the {@code gleaner} command and its subcommands (daemons, job submission and
 * status, the demo, the benchmarks, the chaos suite with its proxies and store audit), the job-file
 * format, and the blocking client that talks to a master.
 */
package dev.gleaner.deploy;
