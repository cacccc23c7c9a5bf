/**
 * JMH microbenchmarks of the hot paths that tests must not time: the frame codec and the
 * workloads' inner loops. Build with {@code mvn -DskipTests package}, run with
 * {@code java -jar bench/target/benchmarks.jar}.
 */
package dev.gleaner.bench;
