// Delivers due durable timers exactly once: each delivery deletes its timer row inside the same
// command transaction that transitions the actor, so a second process finds nothing to deliver.
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { sweeperBatchMax } from '../limits.ts';
import type { Metrics } from '../metrics.ts';
import type { Sql } from '../storage/database.ts';
import type { CommandRunner, Unit } from './command.ts';
import { periodicRun } from './periodic.ts';
import * as store from './store.ts';

/** Delivers one timer's event; registered per actor kind by the domain that owns it. */
export type TimerHandler = (unit: Unit, timer: { actorId: string; name: string; event: Record<string, unknown> }) => Promise<void>;

export interface Sweeper {
  register(actorKind: string, handler: TimerHandler): void;
  /** Delivers every timer due now; returns how many this process delivered. */
  runOnce(): Promise<number>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createSweeper(options: { sql: Sql; commands: CommandRunner; clock: Clock; logger: Logger; metrics: Metrics }): Sweeper {
  const handlers = new Map<string, TimerHandler>();
  let running: Promise<number> | undefined;

  async function deliver(due: store.TimerRow): Promise<boolean> {
    const handler = handlers.get(due.actor_kind);
    if (!handler) {
      options.logger.error('no timer handler for actor kind', { actorKind: due.actor_kind, timer: due.name });
      return false;
    }
    return options.commands.run(`timer.${due.actor_kind}.${due.name}`, [{ kind: due.actor_kind, id: due.actor_id }], async (unit) => {
      const claimed = await store.claimTimer(unit.tx, due.id, unit.now);
      if (!claimed) return false;
      await handler(unit, { actorId: claimed.actor_id, name: claimed.name, event: claimed.event });
      return true;
    });
  }

  async function sweep(): Promise<number> {
    let delivered = 0;
    const due = await store.selectDueTimers(options.sql, options.clock.now(), sweeperBatchMax);
    for (const row of due) {
      try {
        if (await deliver(row)) {
          delivered++;
          options.metrics.timerDeliveries.inc({ kind: row.actor_kind });
        }
      } catch (error) {
        options.logger.error('timer delivery failed', { actorKind: row.actor_kind, timer: row.name, error });
      }
    }
    return delivered;
  }

  const loop = periodicRun(() => sweeper.runOnce(), (error) => options.logger.error('sweep failed', { error }));

  const sweeper: Sweeper = {
    register(actorKind, handler) {
      handlers.set(actorKind, handler);
    },
    async runOnce() {
      // One sweep at a time per process; callers share the sweep under way.
      running ??= sweep().finally(() => (running = undefined));
      return running;
    },
    start(intervalMs) {
      loop.start(intervalMs);
    },
    async stop() {
      loop.stop();
      await running;
    },
  };
  return sweeper;
}
