// A promise rejection nobody handled that reports an outage (the database or Redis out of reach)
// is logged, not fatal: a process must serve again by itself when the dependency comes back. Any
// other one is a bug and ends the process, as Node would.
import type { Logger } from '../../engine/logger.ts';
import { outageOf } from './errors.ts';

export function surviveOutageRejections(logger: Logger): void {
  process.on('unhandledRejection', (reason) => {
    const outage = outageOf(reason);
    if (!outage) throw reason;
    logger.warn('an outage error no one awaited; the process goes on', { outage, code: (reason as { code?: unknown }).code, error: (reason as Error).message, stack: (reason as Error).stack });
  });
}
