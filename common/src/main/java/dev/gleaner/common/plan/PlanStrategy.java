package dev.gleaner.common.plan;

/** A way of turning a job and a platform into a {@link Plan}. Implementations are pure. */
public interface PlanStrategy {
  /** The name users type ({@code --strategy NAME}, {@code strategy:} in a job file). */
  String name();

  Plan plan(PlanRequest request);
}
