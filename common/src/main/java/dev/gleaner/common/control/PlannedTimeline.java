package dev.gleaner.common.control;

import dev.gleaner.common.plan.Timeline;

/**
 * What a job's current plan predicts: when each worker receives its work and saves each piece.
 *
 * @param at when the plan was made (the controller's seconds); its timeline counts from there
 * @param timeline empty before the first plan and while probe chunks measure the workers
 */
public record PlannedTimeline(double at, Timeline timeline) {}
