// A stakeholder's reads of transfers: TransferDetail, the list shape of one transfer, history (offset
// pages over the per-profile view index) and history_sync (keyset over (sync_ts, transfer_id)).
import { failure, type Failure } from '../ledger/errors.ts';
import { movementsOf } from '../ledger/reads.ts';
import type { MovementRow } from '../ledger/types.ts';
import { syncRemainExactMax } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { HistoryInput, QueriesContext, SyncInput, TransferQueries } from './query-types.ts';
import * as store from './store.ts';
import { partyFromProfile, steps, transferDetailJson, transferJson, type PartyInfo } from './views.ts';

async function parties(db: Queryable, rows: readonly store.TransferRow[]): Promise<Map<string, PartyInfo>> {
  const ids = new Set<string>();
  for (const row of rows) {
    if (row.sender_id) ids.add(row.sender_id);
    if (row.recipient_id) ids.add(row.recipient_id);
  }
  const map = new Map<string, PartyInfo>();
  for (const row of await store.selectParties(db, [...ids])) {
    map.set(row.id, partyFromProfile(row.id, row.title, row.username, row.is_individual));
  }
  return map;
}

async function listJson(db: Queryable, rows: store.TransferRow[]): Promise<Record<string, unknown>[]> {
  const [movements, infos] = await Promise.all([movementsOf(db, rows.map((row) => row.id)), parties(db, rows)]);
  const byTransfer = new Map<string, MovementRow[]>();
  for (const movement of movements) byTransfer.set(movement.transfer_id, [...(byTransfer.get(movement.transfer_id) ?? []), movement]);
  return rows.map((row) => transferJson(row, byTransfer.get(row.id) ?? [], infos));
}

export async function detail(
  ctx: QueriesContext, viewerId: string, transferId: string, db: Queryable = ctx.core.sql,
): Promise<{ ok: true; transfer: Record<string, unknown> } | Failure> {
  const bundle = await store.selectTransferBundle(db, transferId);
  if (!bundle || !bundle.stakeholders.some((stakeholder) => stakeholder.profile_id === viewerId)) return failure('transfer_not_found');
  const { row, stakeholders, movements } = bundle;
  let { paycode } = bundle;
  // Only the sender's view shows the code (views.ts decides); open it for that view alone.
  if (paycode?.code_sealed && paycode.sender_id === viewerId) paycode = { ...paycode, code: (await ctx.paycodeSecrets.open(db, paycode.code_sealed)) ?? '' };
  const infos = await parties(db, [row]);
  return { ok: true, transfer: transferDetailJson(row, movements, infos, { viewerId, paycode, publicUrl: ctx.core.config.publicUrl, stakeholders, steps: steps(row) }) };
}

export async function summary(ctx: QueriesContext, transferId: string): Promise<Record<string, unknown>> {
  const row = await store.selectTransfer(ctx.core.sql, transferId);
  if (!row) throw new Error(`transfer ${transferId} is missing`);
  return (await listJson(ctx.core.sql, [row]))[0];
}

export async function history(ctx: QueriesContext, input: HistoryInput): Promise<{ results: Record<string, unknown>[]; more: boolean }> {
  const { sql } = ctx.core;
  const rows = await store.selectHistory(sql, {
    profileId: input.profileId, orderColumn: input.orderColumn, descending: input.orderDirection === 'desc', offset: input.offset, limit: input.limit, appdata: input.appdata,
  });
  const more = rows.length > input.limit;
  return { results: await listJson(sql, rows.slice(0, input.limit)), more };
}

export async function sync(ctx: QueriesContext, input: SyncInput): ReturnType<TransferQueries['sync']> {
  const { sql } = ctx.core;
  const rows = await store.selectSync(sql, input.profileId, input.syncTs, input.transferId, input.limit);
  const more = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  const body: Awaited<ReturnType<TransferQueries['sync']>> = {
    results: await listJson(sql, page),
    more,
    first_sync_ts: page.length > 0 ? page[0].sync_ts.toISOString() : null,
    last_sync_ts: page.length > 0 ? page[page.length - 1].sync_ts.toISOString() : null,
  };
  if (input.countRemain) {
    // No more rows after the page: nothing remains, and nothing need be counted.
    const last = page[page.length - 1];
    body.remain = more ? await store.countSyncAfter(sql, input.profileId, last.sync_ts, last.id, syncRemainExactMax) : 0;
  }
  return body;
}
