// What a wallet holds, per loop and currency, read in constant time from the balances table.
import { mediaUrlOf } from '../designs/images.ts';
import { formatMinor } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import { openLoopId } from './allocation.ts';
import type { LedgerContext, LedgerService } from './service-types.ts';
import * as store from './store.ts';

export async function holdings(ctx: LedgerContext, db: Queryable = ctx.core.sql, profileId: string): ReturnType<LedgerService['holdings']> {
  const rows = await store.selectHoldings(db, profileId);
  return rows.map((row) => ({
    loop_id: row.loop_id,
    currency: row.currency,
    // A brand cash LoopDescription names its design and shows its image thumbnail; open loop
    // entries keep the keys observed from the real service.
    ...(row.loop_id === openLoopId ? {} : { title: row.title ?? `Brand cash ${row.loop_id}`, thumbnail: row.image_media_id ? mediaUrlOf(ctx.core.config, row.image_media_id, 'thumbnail') : null }),
    amount: formatMinor(row.amount, row.currency),
    expiring: row.expiring.map((item) => ({ amount: formatMinor(BigInt(item.amount), row.currency), expire_time: new Date(item.expire_time).toISOString() })),
  }));
}

export function balance(db: Queryable, profileId: string, loopId: string, currency: string): Promise<bigint> {
  return store.selectBalance(db, profileId, loopId, currency);
}

/**
 * What a wallet holds of a loop for max_per_wallet: its balance plus its own cash waiting in escrow
 * (payment codes, trades, sends to an address), which comes back to it if not taken.
 */
export function heldForCap(db: Queryable, profileId: string, loopId: string, currency: string): Promise<bigint> {
  return store.selectHeldForCap(db, profileId, loopId, currency);
}
