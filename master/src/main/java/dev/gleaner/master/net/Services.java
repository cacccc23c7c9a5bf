package dev.gleaner.master.net;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.control.ControlLoop;
import dev.gleaner.master.control.JobService;
import dev.gleaner.master.control.Revocations;
import dev.gleaner.master.metrics.MasterMetrics;
import io.micrometer.core.instrument.MeterRegistry;

/** What every connection handler needs. */
record Services(MasterConfig config, Ticker ticker, PeerAuthenticator authenticator, ControlLoop loop, JobService jobs,
    SendPort sendPort, HeartbeatMonitor monitor, MasterMetrics metrics, MeterRegistry registry, LoginGate gate, ResultBudget budget,
    Revocations revocations, TokenSessions tokenSessions) {}
