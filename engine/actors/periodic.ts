// The background loop of the outbox and the sweeper: run the job, wait intervalMs, run it again,
// until stopped. The wait starts when a run ends, so runs never overlap and a slow run delays the next.

export interface PeriodicRun {
  start(intervalMs: number): void;
  /** No run starts after this; a run under way finishes (its owner waits for it). */
  stop(): void;
}

/** A loop of `run`; a failed run is handed to `onFailure` and the loop goes on. */
export function periodicRun(run: () => Promise<unknown>, onFailure: (error: unknown) => void): PeriodicRun {
  let timer: NodeJS.Timeout | undefined;
  return {
    start(intervalMs) {
      const tick = async () => {
        await run().catch(onFailure);
        if (timer) timer = setTimeout(tick, intervalMs);
      };
      timer = setTimeout(tick, intervalMs);
    },
    stop() {
      const current = timer;
      timer = undefined;
      if (current) clearTimeout(current);
    },
  };
}
