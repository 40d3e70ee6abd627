// An in-process lock: a FIFO queue per resource. Enough when one process owns the database.
import { stableOrder, type LockHold, type LockService } from './lock.ts';

export function createMemoryLocks(): LockService {
  const tails = new Map<string, Promise<void>>();

  async function acquireOne(resource: string): Promise<() => void> {
    const previous = tails.get(resource) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    tails.set(resource, tail);
    await previous;
    return () => {
      release();
      if (tails.get(resource) === tail) tails.delete(resource);
    };
  }

  return {
    kind: 'memory',
    async using(resources, routine) {
      const releases: (() => void)[] = [];
      try {
        for (const resource of stableOrder(resources)) releases.push(await acquireOne(resource));
        const hold: LockHold = { isHeld: () => true };
        return await routine(hold);
      } finally {
        for (const release of releases.reverse()) release();
      }
    },
    ping: async () => true,
    close: async () => {},
  };
}
