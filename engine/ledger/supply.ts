// The ledger's totals of cash leaving it, kept inside another domain's command: cash redeemed or
// expired (its notes already moved out of the wallets through the gate). The audit checks them;
// the SQL is store.ts, the ledger's alone. Notes are issued by the gate only (cash.ts issueNote).
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';

/** A note to issue to a wallet: its loop, currency, issuer and amount, and for brand cash its reserve, plan and distribution. */
export type NewNote = Parameters<typeof store.insertIssuedNote>[1];

/** Adds cash that left the system by redemption (a bank deposit, brand cash redeemed) to its loop's redeemed total. */
export function countRedeemed(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  return store.addRedeemed(tx, loopId, currency, amount);
}

/** Adds brand cash that expired to its loop's expired total. */
export function countExpired(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  return store.addExpired(tx, loopId, currency, amount);
}
