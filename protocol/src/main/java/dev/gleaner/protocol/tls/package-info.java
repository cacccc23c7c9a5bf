/**
 * TLS on the one port: the master's server context, the peers' trust in the cluster CA (with host
 * name or IP checks), one-line explanations of certificate failures, and the cluster CA itself
 * (certificates made with the JDK's {@code keytool}, no extra library). Both daemons and the
 * command line build their TLS from here, so the two ends cannot drift apart.
 */
package dev.gleaner.protocol.tls;
