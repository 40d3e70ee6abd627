// The rows another domain's movement leaves for the point of sale, written in that movement's
// command: receivables on a business's report, settlements owed after a redemption, the open
// loop cash a business received at once. The SQL is store.ts, this domain's alone.
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';
import type { NewReceivable, NewSettlement } from './types.ts';

/** Adds rows to the businesses' receivable reports. */
export function recordReceivables(tx: Queryable, rows: readonly NewReceivable[], at: Date): Promise<void> {
  return store.insertReceivables(tx, rows, at);
}

/** Records the settlements a redemption owes (funded from the reserve, or pending at a settler). */
export function recordSettlements(tx: Queryable, rows: readonly NewSettlement[], at: Date): Promise<void> {
  return store.insertSettlements(tx, rows, at);
}

/**
 * Adds `delta` (negative for a refund) of open loop cash a business received at once to its
 * `immediate` report row of the transfer, writing the row on the first receipt.
 */
export function recordImmediateReceipt(
  tx: Queryable, row: { profileId: string; transferId: string; currency: string; delta: bigint; posDevice: { holderId: string; deviceId: string } | null }, at: Date,
): Promise<void> {
  return store.addImmediateReceivable(tx, row, at);
}
