package dev.gleaner.common.control;

import dev.gleaner.common.util.RangeSet;
import java.util.List;
import java.util.Map;

/**
 * A job as {@code gleaner status} shows it.
 *
 * @param expectedWork units the current plan expects saved (committed and held when it was made,
 *     plus its own expectation for the rest); NaN before the first plan
 * @param shares units committed by each worker
 * @param scheme the recovery scheme's name, empty before the first plan
 * @param queued units queued that nobody has started or saved
 * @param held units held by chunks being computed
 * @param mismatches the latest notes of checks that disagreed or could not be made
 */
public record JobView(String id, String workload, JobPhase phase, String message, String strategy, String reason,
    long units, long committed, RangeSet notDone, double expectedWork, int replans, double deadline,
    Map<String, Long> shares, String scheme, List<Action.Rerouted> reroutes, long queued, long held, long verified,
    List<String> mismatches) {}
