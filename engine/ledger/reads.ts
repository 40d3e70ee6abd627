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

export type { DueNoteRow } from './store.ts';

/** Wallet-held brand cash past its expiry, of a design or a holder (no lock): whom expiry visits. */
export function dueNotes(db: Queryable, scope: { loopId?: string; holderId?: string }, now: Date, limit: number): Promise<store.DueNoteRow[]> {
  return store.selectDueNotes(db, { ...scope, lock: false }, now, limit);
}

/** One holder's brand cash of one design past its expiry, row-locked: expiry's picks, after the gate locked the balances. */
export function dueNotesForUpdate(tx: Queryable, holderId: string, loopId: string, now: Date, limit: number): Promise<store.DueNoteRow[]> {
  return store.selectDueNotes(tx, { holderId, loopId, lock: true }, now, limit);
}

/** A design's reserve notes in one currency, row-locked in spending order, at most `limit`. */
export function reserveNotesForUpdate(tx: Queryable, designId: string, currency: string, limit: number): Promise<Note[]> {
  return store.selectNotesForUpdate(tx, { kind: 'reserve', id: designId }, currency, null, limit);
}
