/**
 * The controller's adapter in the master: {@link dev.gleaner.master.control.ControlLoop} runs the
 * pure {@link dev.gleaner.common.control.Controller} on one thread, turns network and store
 * completions into its events, and carries out its actions through
 * {@link dev.gleaner.master.control.WorkerLink}s (which the network implements) and the store;
 * {@link dev.gleaner.master.control.JobService} validates, stores and resumes jobs. Internal to the
 * master.
 */
package dev.gleaner.master.control;
