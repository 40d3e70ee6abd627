// The shared parts every domain service is built on: storage, locks, the command path,
// timers, the outbox, time, logging and metrics.
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';
import type { Metrics } from './metrics.ts';
import type { LockService } from './locks/lock.ts';
import type { Database, Sql } from './storage/database.ts';
import type { CommandRunner } from './actors/command.ts';
import type { Sweeper } from './actors/sweeper.ts';
import type { Outbox } from './actors/outbox.ts';
import type { IdMinter } from './ids.ts';

export interface Core {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  database: Database;
  sql: Sql;
  locks: LockService;
  commands: CommandRunner;
  sweeper: Sweeper;
  outbox: Outbox;
  /** Ids under this installation's permutation key. */
  ids: IdMinter;
}
