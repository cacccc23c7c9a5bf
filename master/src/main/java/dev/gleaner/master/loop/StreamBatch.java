package dev.gleaner.master.loop;

/**
 * Where the input streams of one batch of the controller's decisions are queued. The controller
 * decides a batch at one instant, and the port weighs all of its streams together by its order: a
 * stream queued first would otherwise be on the wire, under one port, before the better-ranked ones
 * of the same batch were queued, and a plan's service order would follow the order the workers
 * happened to wait in.
 */
public interface StreamBatch {
  /** No port: nothing to hold. */
  StreamBatch NONE = new StreamBatch() {
    @Override
    public void begin() {
    }

    @Override
    public void end() {
    }
  };

  /** The streams queued from now on wait, none starting, until {@link #end}. */
  void begin();

  /** The streams queued since {@link #begin} start, in the port's order. */
  void end();
}
