package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.JobMemory;

/**
 * What a running job's controller state must keep across a restart (see {@link JobMemory}): when
 * it changed, the job says so with an {@link Action.Remember}, at most once per
 * {@link ControlConfig#MEMORY_INTERVAL} (each is written whole), and at once when the body stops.
 */
public final class Memories {
  private final ControlState s;

  Memories(ControlState s) {
    this.s = s;
  }

  /**
   * Every running job whose memories changed says so; with {@code whenever}, however recently it
   * last did (the body is stopping, and a restart must find the checks picked since).
   */
  public void remember(double now, boolean whenever) {
    for (JobLedger j : s.live()) {
      if (j.phase.ended() || !whenever && now - j.rememberedAt < ControlConfig.MEMORY_INTERVAL) {
        continue;
      }
      long plan = JobMemory.planVersion(j);
      long checks = JobMemory.checksVersion(j);
      if (plan != j.planMemory || checks != j.checksMemory) {
        s.emit(new Action.Remember(j.def.id(), plan != j.planMemory ? JobMemory.plan(j) : null,
            checks != j.checksMemory ? JobMemory.checks(j) : null));
        j.planMemory = plan;
        j.checksMemory = checks;
        j.rememberedAt = now;
      }
    }
  }

  /** The body could not store the job's last memories: they are sent again, whole, at the next tick. */
  public void lost(String job) {
    JobLedger j = s.jobs.get(job);
    if (j != null) {
      j.planMemory = Long.MIN_VALUE;
      j.checksMemory = Long.MIN_VALUE;
    }
  }
}
