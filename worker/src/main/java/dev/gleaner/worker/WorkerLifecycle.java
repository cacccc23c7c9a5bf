package dev.gleaner.worker;

import dev.gleaner.worker.WorkerDaemon.State;

/**
 * The daemon's state and the moves between its states, shared by the parts of the daemon that
 * move it (the connection, failure injection, drain, stop) and read by its owner's moves.
 *
 * <pre>
 *   CONNECTING --session up--> CONNECTED --session lost--> CONNECTING
 *   CONNECTING, CONNECTED --injected outage--> INTERRUPTED --outage over--> CONNECTING
 *   any but DRAINING, STOPPED --drain--> DRAINING --> STOPPED
 *   any --stop--> STOPPED
 * </pre>
 *
 * <p>The state is a volatile field, read by any thread (the event loop, the owner's watch, a drain);
 * a move reads it once and then writes it, without a lock.
 */
final class WorkerLifecycle {
  private volatile State state = State.CONNECTING;

  State get() {
    return state;
  }

  /** Connecting or connected: neither down on purpose nor leaving. */
  boolean live() {
    State s = state;
    return s == State.CONNECTED || s == State.CONNECTING;
  }

  /** Draining or stopped. */
  boolean leaving() {
    State s = state;
    return s == State.STOPPED || s == State.DRAINING;
  }

  boolean stopped() {
    return state == State.STOPPED;
  }

  /** @return false if it is down on purpose or leaving (it then does not connect) */
  boolean connecting() {
    State s = state;
    if (s == State.STOPPED || s == State.DRAINING || s == State.INTERRUPTED) {
      return false;
    }
    state = State.CONNECTING;
    return true;
  }

  /** A session started: CONNECTED, unless it was doing something else meanwhile. */
  void connected() {
    if (state == State.CONNECTING) {
      state = State.CONNECTED;
    }
  }

  /** @return whether it was connecting or connected (it then connects again) */
  boolean lost() {
    if (!live()) {
      return false;
    }
    state = State.CONNECTING;
    return true;
  }

  /** @return whether it was connecting or connected (it then goes down) */
  boolean interrupted() {
    if (!live()) {
      return false;
    }
    state = State.INTERRUPTED;
    return true;
  }

  /** @return whether it was down on purpose (it then connects again) */
  boolean recovered() {
    if (state != State.INTERRUPTED) {
      return false;
    }
    state = State.CONNECTING;
    return true;
  }

  /** @return false if it is already leaving */
  boolean draining() {
    if (leaving()) {
      return false;
    }
    state = State.DRAINING;
    return true;
  }

  void stop() {
    state = State.STOPPED;
  }
}
