/**
 * Availability traces: when each computer was lent to the job and when its owner had it back.
 * Parsed from the Failure Trace Archive's tab format ({@link FtaTraceFormat}), drawn from published
 * fits of desktop availability ({@link DesktopTraceGenerator}), turned into the most work any
 * schedule could save on them ({@link OmniscientBound}) and into the owner's comings and goings a
 * replay drives ({@link OwnerSchedule}). Pure: text in, values out; files are read and written in
 * {@code deploy}.
 */
package dev.gleaner.common.trace;
