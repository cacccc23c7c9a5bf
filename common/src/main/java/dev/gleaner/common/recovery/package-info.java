/**
 * Static recovery schemes (Klonowska's thesis, Part II): where a failed computer's work goes, and then
 * where if that computer is down too.
 *
 * <p>A {@link dev.gleaner.common.recovery.RecoveryScheme} holds one recovery list per process; the
 * generators in {@link dev.gleaner.common.recovery.Schemes} build the papers' schemes;
 * {@link dev.gleaner.common.recovery.WorstCaseLoad} computes the exact worst-case load vector
 * L(n,k,R) through chains and their unions, and {@link dev.gleaner.common.recovery.Bounds} the lower
 * bounds BV and MV it is compared with.
 */
package dev.gleaner.common.recovery;
