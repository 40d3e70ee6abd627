// An actor's snapshot as it stands, read outside any command: for checks other domains make
// before a command, which the command then confirms under its lock.
import type { Queryable } from '../storage/database.ts';
import type { StoredSnapshot } from './actor.ts';
import { selectActor } from './store.ts';

/** The stored snapshot of (kind, id), without a lock; null when there is no such actor. */
export async function peekSnapshot(db: Queryable, kind: string, id: string): Promise<StoredSnapshot | null> {
  return (await selectActor(db, kind, id))?.snapshot ?? null;
}
