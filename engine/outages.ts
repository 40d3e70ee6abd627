// What a dependency outage looks like from inside the engine: the database or Redis out of reach, a
// lock lost or not to be had, a command past its deadline. The edge answers each with 503 busy and
// Retry-After (api/http/errors.ts); none is a bug.
import { CommandTimeoutError } from './actors/command.ts';
import { LockLostError, LockUnavailableError } from './locks/lock.ts';
import { isRedisUnavailable } from './locks/redlock.ts';
import { databaseOutage } from './storage/database.ts';

export type Outage = 'lock_unavailable' | 'lock_lost' | 'database_unavailable' | 'command_deadline';

/** The outage an error reports, or null when it is none (then it is a named error or a bug). */
export function outageOf(error: unknown): Outage | null {
  if (error instanceof LockUnavailableError) return 'lock_unavailable';
  if (error instanceof LockLostError) return 'lock_lost';
  if (error instanceof CommandTimeoutError) return 'command_deadline';
  if (databaseOutage(error) !== null) return 'database_unavailable';
  if (isRedisUnavailable(error)) return 'lock_unavailable';
  return null;
}
