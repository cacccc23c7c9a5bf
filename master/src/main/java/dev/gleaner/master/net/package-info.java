/**
 * The master's network: one TCP port, Netty. {@link dev.gleaner.master.net.MasterChannelInitializer}
 * is the whole pipeline. Each connection starts with a {@link dev.gleaner.master.net.HandshakeHandler}
 * (Hello, Challenge, answer, Welcome, under the {@link dev.gleaner.master.net.LoginGate}'s bounds),
 * which at the Welcome replaces itself with a {@link dev.gleaner.master.net.WorkerHandler}, turning a
 * worker's frames into control-loop events, or a {@link dev.gleaner.master.net.ClientHandler},
 * answering a client's or an operator's calls; what the three share (refusals, closes, exceptions)
 * is in {@link dev.gleaner.master.net.ConnectionHandler}. {@link dev.gleaner.master.net.WorkerSession}
 * is a worker's link, through which the loop's actions go out; {@link dev.gleaner.master.net.port.SendPort}
 * is the one port that streams chunk input, one worker at a time in the plan's service order;
 * {@link dev.gleaner.master.net.HeartbeatMonitor} declares silent workers down. Internal to the
 * master.
 */
package dev.gleaner.master.net;
