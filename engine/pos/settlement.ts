// Settling what redemptions left pending: a settler of the design (a profile with an active settler
// agreement, or the issuer) pays the pending rows in open loop cash from its own wallet, a batch per
// command; each recipient gets one `settle` transfer per batch (movement `settle` from the settler),
// every row's settlement actor moves to settled, and the redeemer's report row moves the amount
// from pending to settled. Running it again pays only what is still pending: it is idempotent.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { agreementRolesOf, designById, grantsOn } from '../designs/queries.ts';
import { openLoopId } from '../ledger/allocation.ts';
import type { Failure } from '../ledger/errors.ts';
import { authorityRefusal } from '../transfers/gate.ts';
import { settleBatchMax } from '../limits.ts';
import { formatMinor } from '../money.ts';
import type { SettlementsContext } from './context.ts';
import { posFailure, type PosFailure } from './errors.ts';
import { settleBatch } from './settle-batch.ts';
import * as store from './store.ts';

export interface SettleInput {
  designId: string;
  /** The settler calling; null when the operator settles (the design's first active settler pays). */
  settlerId: string | null;
  limit: number;
  /** A closed-loop token calls: settling pays open loop cash, which it may not move. */
  closedLoopOnly?: boolean;
}

export interface SettleAnswer {
  ok: true;
  design_id: string;
  settler_id: string;
  settled: number;
  amount: string;
  currency: string;
  transfer_ids: string[];
  pending: number;
  pending_amount: string;
}

export type SettleResult = SettleAnswer | Failure | PosFailure;

export interface Settlements {
  settle(input: SettleInput): Promise<SettleResult>;
  /** What is pending, for the issuer, its settlers and redeemers, and profiles granted view_design_network. */
  pending(designId: string, callerId: string): Promise<{ ok: true; pending: { currency: string; count: number; amount: string }[] } | PosFailure>;
}

export function createSettlements(core: Core): Settlements {
  const ctx: SettlementsContext = { core };
  return {
    settle: (input) => settle(ctx, input),
    pending: (designId, callerId) => pending(ctx, designId, callerId),
  };
}

async function settlerFor(ctx: SettlementsContext, designId: string, issuerId: string, settlerId: string | null): Promise<string | PosFailure> {
  const { sql } = ctx.core;
  if (settlerId !== null) {
    if (settlerId === issuerId || (await agreementRolesOf(sql, designId, settlerId)).settler) return settlerId;
    return posFailure('not_settler', { description: 'Only the issuer or a profile with an active settler agreement settles this design.' });
  }
  const rows = await sql<{ member_id: string }[]>`
    select member_id from agreements where design_id = ${designId} and settler and state = 'active' order by created_at, id limit 1`;
  return rows[0]?.member_id ?? issuerId;
}

async function settle(ctx: SettlementsContext, input: SettleInput): Promise<SettleResult> {
  const { sql, commands } = ctx.core;
  const design = /^\d{10}$/.test(input.designId) ? await designById(sql, input.designId) : null;
  if (!design || design.deleted_at) return posFailure('design_not_found');
  const settlerId = await settlerFor(ctx, design.id, design.issuer_id, input.settlerId);
  if (typeof settlerId !== 'string') return settlerId;
  // The gate's authority rung: a settlement is paid in open loop cash.
  const refused = authorityRefusal({ closedLoopOnly: input.closedLoopOnly === true }, [openLoopId], 'design_id');
  if (refused) return refused;
  const limit = Math.min(Math.max(input.limit, 1), settleBatchMax);
  const result = await commands.run('pos.settle', [{ kind: 'settle', id: design.id }, { kind: 'wallet', id: settlerId }], (unit: Unit<Failure>) => settleBatch(unit, design, settlerId, limit));
  if (!result.ok) return result;
  const left = (await store.pendingTotals(sql, design.id)).find((row) => row.currency === design.currency);
  return {
    ok: true, design_id: design.id, settler_id: settlerId, settled: result.settled, amount: formatMinor(result.total, design.currency), currency: design.currency,
    transfer_ids: result.transferIds, pending: left?.count ?? 0, pending_amount: formatMinor(left?.amount ?? 0n, design.currency),
  };
}

async function pending(ctx: SettlementsContext, designId: string, callerId: string): Promise<{ ok: true; pending: { currency: string; count: number; amount: string }[] } | PosFailure> {
  const { sql } = ctx.core;
  const design = /^\d{10}$/.test(designId) ? await designById(sql, designId) : null;
  if (!design || design.deleted_at) return posFailure('design_not_found');
  if (design.issuer_id !== callerId) {
    const [roles, grants] = await Promise.all([agreementRolesOf(sql, design.id, callerId), grantsOn(sql, design.id, callerId)]);
    if (!roles.settler && !roles.redeemer && !grants.includes('view_design_network')) return posFailure('not_settler', { description: 'Only the issuer, its settlers and redeemers see what is pending.' });
  }
  const pending = (await store.pendingTotals(sql, design.id)).map((row) => ({ currency: row.currency, count: row.count, amount: formatMinor(row.amount, row.currency) }));
  return { ok: true, pending };
}
