/**
 * What the master shows of itself: the status replies (`gleaner status`, `jobs`, `wait`), the web
 * page's figures, each job's forecast and the hour's chart, built on the control thread from the
 * controller's views and the loop's books ({@link dev.gleaner.master.status.StatusService}), and
 * what a reader may see of another client's jobs ({@link dev.gleaner.master.status.ReadableStatus}).
 * It reads the loop; the loop knows nothing of it. Internal to the master.
 */
package dev.gleaner.master.status;
