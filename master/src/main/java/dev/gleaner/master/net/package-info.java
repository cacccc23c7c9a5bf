/**
 * The master's network: one TCP port, Netty. {@link dev.gleaner.master.net.MasterChannelInitializer}
 * is the whole pipeline; {@link dev.gleaner.master.net.ConnectionHandler} runs the handshake and
 * turns a worker's frames into control-loop events; {@link dev.gleaner.master.net.WorkerSession} is
 * a worker's link, through which the loop's actions go out; {@link dev.gleaner.master.net.SendPort}
 * is the one port that streams chunk input, one worker at a time in the plan's service order;
 * {@link dev.gleaner.master.net.HeartbeatMonitor} declares silent workers down. Internal to the
 * master.
 */
package dev.gleaner.master.net;
