// One lock interface over an in-process lock (embedded default) and Redlock (several processes).
// Locks only cut contention; correctness comes from Postgres row locks and version checks.

export interface LockHold {
  /** False once the lock may have passed to someone else: the holder must not commit. */
  isHeld(): boolean;
}

export interface LockService {
  readonly kind: 'memory' | 'redlock';
  /** Holds every resource (taken in a stable order) while routine runs. */
  using<R>(resources: readonly string[], routine: (hold: LockHold) => Promise<R>): Promise<R>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export class LockUnavailableError extends Error {
  constructor(resources: readonly string[]) {
    super(`could not acquire locks on ${resources.join(', ')}`);
  }
}

export class LockLostError extends Error {
  constructor() {
    super('a lock was lost before commit; the transaction was rolled back');
  }
}

export function stableOrder(resources: readonly string[]): string[] {
  return [...new Set(resources)].sort();
}
