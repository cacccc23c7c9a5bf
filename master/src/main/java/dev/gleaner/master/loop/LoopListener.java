package dev.gleaner.master.loop;

/**
 * What runs on the control thread beside the loop's own work, told of the loop's ticks and of jobs
 * taken up (the status keeps its figures fresh this way, without the loop knowing it).
 */
public interface LoopListener {
  /** After the controller's tick, at controller time {@code now}. */
  default void tick(Books books, double now) {}

  /** A job was taken up (submitted, or resumed after a restart). */
  default void jobAdded(MasterJob job) {}
}
