package dev.gleaner.deploy.bench.driver;

import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import java.io.IOException;

/**
 * One logged-in client connection to a master, as the drivers see it: submit a job, ask for its
 * status. The command wraps the CLI's own blocking client in it, so a driver pays what
 * {@code gleaner submit} pays, without a JVM start per job.
 */
public interface DriverConnection extends AutoCloseable {
  /** Submits a job; returns its id. */
  String submit(JobSpec spec) throws IOException;

  /** The job's status as the master reports it now. */
  JobStatus status(String jobId) throws IOException;

  /**
   * The job's status once it has ended, or after {@code waitMs} if it has not: the master answers
   * a status request that says it waits when the job ends, so "DONE seen" is when the master said
   * so, not the next poll.
   */
  JobStatus awaitStatus(String jobId, long waitMs) throws IOException;

  /** The master's whole status: every job, every worker with its estimates, the meters. */
  StatusReply everything() throws IOException;

  @Override
  void close() throws IOException;

  /** Opens a new connection and logs in (TCP connect, challenge, response, welcome). */
  @FunctionalInterface
  interface Connector {
    DriverConnection connect() throws IOException;
  }
}
