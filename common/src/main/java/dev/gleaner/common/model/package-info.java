/** Workers and platforms as the planner sees them: speed, bandwidth and interruption risk. */
package dev.gleaner.common.model;
