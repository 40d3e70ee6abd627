// Cash entering and leaving the ledger inside another domain's command: a note issued (the issued
// total grows), cash redeemed or expired (its notes already moved out of the wallets). Each keeps
// the ledger totals the audit checks; the SQL is store.ts, the ledger's alone.
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';

/** A note to issue to a wallet: its loop, currency, issuer and amount, and for brand cash its reserve, plan and distribution. */
export type NewNote = Parameters<typeof store.insertIssuedNote>[1];

/** Issues a note to a wallet: the note, the wallet's balance and the issued total in one statement; its serial. */
export function issueNote(tx: Queryable, note: NewNote, at: Date): Promise<bigint> {
  return store.insertIssuedNote(tx, note, at);
}

/** Adds cash that left the system by redemption (a bank deposit, brand cash redeemed) to its loop's redeemed total. */
export function countRedeemed(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  return store.addRedeemed(tx, loopId, currency, amount);
}

/** Adds brand cash that expired to its loop's expired total. */
export function countExpired(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  return store.addExpired(tx, loopId, currency, amount);
}
