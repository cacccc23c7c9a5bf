/**
 * What people write for gleaner, read into values: the job file ({@link dev.gleaner.deploy.format.JobFile}, whose
 * keys are the master's {@code JobFields}, shared with the HTTP API), the hosts file of {@code gleaner cluster},
 * the platform file of {@code gleaner plan}, and the values typed after an option ({@code HOST:PORT}, whole numbers
 * such as {@code 2e6}; durations such as {@code 1h30m} and deadlines such as {@code Mon 08:00} are the master's
 * {@code Durations} and {@code Deadlines}). Each reader fails with one line that names the file, the line or the
 * option.
 *
 * <p>The floor of the deploy module: it imports nothing of the other {@code dev.gleaner.deploy} packages, only the
 * protocol's and common's model classes, the master's job fields, Jackson and picocli's converter interface.
 */
package dev.gleaner.deploy.format;
