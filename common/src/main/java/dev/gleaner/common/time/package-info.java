/** Time as a value passed in: tickers that tests move by hand, and retry backoff. */
package dev.gleaner.common.time;
