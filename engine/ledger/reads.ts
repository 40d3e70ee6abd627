// The ledger's reads other domains make: a wallet's cash by loop, the movements of transfers, and
// a design's reserve notes (locked, for a release in the caller's command).
import type { Note } from './allocation.ts';
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';
import type { LoopSummaryRow, MovementRow } from './types.ts';

/** A wallet's cash by loop, currency and issuer. */
export function loopSummaryOf(sql: Queryable, profileId: string): Promise<LoopSummaryRow[]> {
  return store.selectLoopSummary(sql, profileId);
}

/** The movement rows of the transfers, by transfer, movement and line. */
export function movementsOf(sql: Queryable, transferIds: readonly string[]): Promise<MovementRow[]> {
  return store.selectMovements(sql, transferIds);
}

/** A design's reserve notes in one currency, row-locked in spending order, at most `limit`. */
export function reserveNotesForUpdate(tx: Queryable, designId: string, currency: string, limit: number): Promise<Note[]> {
  return store.selectNotesForUpdate(tx, { kind: 'reserve', id: designId }, currency, null, limit);
}
