/**
 * Time as a value passed in: tickers that tests move by hand, retry backoff, and the weekly windows
 * in which a lent computer may work.
 */
package dev.gleaner.common.time;
