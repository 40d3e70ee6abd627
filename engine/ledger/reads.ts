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

export type { ArrivedNote, DueNoteRow } from './store.ts';

/** The soonest expiry still ahead among a design's live notes (wallets and escrows). */
export const nextExpiryOf = (db: Queryable, loopId: string): Promise<Date | null> => store.selectNextExpiry(db, loopId);
/** How many of the notes are brand cash past its expiry. */
export const expiredNotesAmong = (db: Queryable, serials: readonly bigint[], at: Date): Promise<number> => store.countExpiredNotes(db, serials, at);
/** The wallets holding a design's cash: amount and soonest expiry, soonest expiry first. */
export const holdersOf = (db: Queryable, loopId: string, limit: number): Promise<store.HolderSummaryRow[]> => store.selectHolders(db, loopId, limit);
/** A redeemer's notes of the designs, row-locked in serial order: what redemption on arrival takes. */
export const arrivedNotesForUpdate = (tx: Queryable, holderId: string, loopIds: readonly string[], limit: number): Promise<store.ArrivedNote[]> => store.selectArrivedNotesForUpdate(tx, holderId, loopIds, limit);

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
