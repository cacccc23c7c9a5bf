/**
 * The worker's owner policy: when a lent computer may work ({@link dev.gleaner.common.time.WeeklyWindows}),
 * how it sees its owner ({@link dev.gleaner.worker.owner.OwnerActivity} and its Linux sources:
 * input-device interrupts, logins, other processes' load, X idle time, a file), and what it does
 * when the owner comes back ({@link dev.gleaner.worker.owner.OwnerPolicy}, stepped by the
 * {@link dev.gleaner.worker.owner.OwnerWatch}): vacate within a grace time, or suspend for a short visit.
 */
package dev.gleaner.worker.owner;
