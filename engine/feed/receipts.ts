// The receipt as a till sees it: the transfer id, what arrived by loop, the sender's public profile
// and the timestamp (the transfer's completion). Built from store rows, one sender read per sender.
import type { Core } from '../core.ts';
import { feedSenderCacheEntriesMax, feedSenderCacheMs } from '../limits.ts';
import { formatMinor } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { ReceiptRow } from './store.ts';

export interface ReceiptJson {
  transfer_id: string;
  workflow_type: string;
  timestamp: string;
  currency: string;
  /** What the recipient received in all, a decimal string. */
  amount: string;
  /** What it received per loop (a transfer may carry notes of several loops). */
  loops: { loop_id: string; currency: string; amount: string }[];
  sender: Record<string, unknown> | null;
  message: string | null;
}

export interface ReceiptsContext {
  core: Core;
  profiles: ProfilesService;
}

function totalOf(row: ReceiptRow): bigint {
  const inCurrency = row.loops.filter((loop) => loop.currency === row.currency);
  return inCurrency.length === 0 ? BigInt(row.amount) : inCurrency.reduce((sum, loop) => sum + BigInt(loop.amount), 0n);
}

/**
 * Senders' public profiles recently read (the live feed's): a receipt told within feedSenderCacheMs of
 * an earlier one from the same sender reuses it, so a busy till costs no profile read per payment.
 */
export function createSenderCache(now: () => number) {
  const entries = new Map<string, { at: number; sender: Record<string, unknown> | null }>();
  return {
    get(id: string): Record<string, unknown> | null | undefined {
      const entry = entries.get(id);
      return entry && now() - entry.at < feedSenderCacheMs ? entry.sender : undefined;
    },
    set(id: string, sender: Record<string, unknown> | null): void {
      entries.delete(id);
      entries.set(id, { at: now(), sender });
      // The oldest written first: Map keeps insertion order.
      if (entries.size > feedSenderCacheEntriesMax) entries.delete(entries.keys().next().value!);
    },
  };
}

export type SenderCache = ReturnType<typeof createSenderCache>;

/** The wire receipts of store rows, in their order (senders from `cache` when it holds them). */
export async function toReceipts(ctx: ReceiptsContext, rows: readonly ReceiptRow[], cache?: SenderCache): Promise<ReceiptJson[]> {
  const senderIds = [...new Set(rows.flatMap((row) => (row.sender_id ? [row.sender_id] : [])))];
  const senders = new Map<string, Record<string, unknown> | null>();
  for (const id of senderIds) {
    const cached = cache?.get(id);
    if (cached !== undefined) senders.set(id, cached);
  }
  const toRead = senderIds.filter((id) => !senders.has(id));
  const records = await Promise.all(toRead.map((id) => ctx.profiles.get(ctx.core.database.lookups, id)));
  toRead.forEach((id, index) => {
    const sender = records[index] ? ctx.profiles.toPublic(records[index]) : null;
    senders.set(id, sender);
    cache?.set(id, sender);
  });
  return rows.map((row) => ({
    transfer_id: row.transfer_id,
    workflow_type: row.workflow_type,
    timestamp: new Date(row.end_at).toISOString(),
    currency: row.currency,
    amount: formatMinor(totalOf(row), row.currency),
    loops: row.loops.map((loop) => ({ loop_id: loop.loop_id, currency: loop.currency, amount: formatMinor(BigInt(loop.amount), loop.currency) })),
    sender: row.sender_id ? (senders.get(row.sender_id) ?? null) : null,
    message: row.message,
  }));
}
