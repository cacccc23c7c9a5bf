package dev.gleaner.master.net;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.auth.PeerAuthenticator;
import dev.gleaner.master.auth.Revocations;
import dev.gleaner.master.auth.TokenSessions;
import dev.gleaner.master.loop.ControlLoop;
import dev.gleaner.master.loop.JobService;
import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.net.port.SendPort;
import dev.gleaner.master.status.StatusService;
import io.micrometer.core.instrument.MeterRegistry;

/** What every connection handler needs. */
record Services(MasterConfig config, Ticker ticker, PeerAuthenticator authenticator, ControlLoop loop, JobService jobs,
    StatusService status, SendPort sendPort, HeartbeatMonitor monitor, MasterMetrics metrics, MeterRegistry registry,
    LoginGate gate, ResultBudget budget, Revocations revocations, TokenSessions tokenSessions) {}
