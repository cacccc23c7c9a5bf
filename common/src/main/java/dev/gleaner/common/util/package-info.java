/** Small pure helpers shared by the planner, the recovery schemes and their tests. */
package dev.gleaner.common.util;
