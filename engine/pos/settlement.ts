// Settling what redemptions left pending: a settler of the design (a profile with an active settler
// agreement, or the issuer) pays the pending rows in open loop cash from its own wallet, a batch per
// command; each recipient gets one `settle` transfer per batch (movement `settle` from the settler),
// every row's settlement actor moves to settled, and the redeemer's report row moves the amount
// from pending to settled. Running it again pays only what is still pending: it is idempotent.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { activeAgreementRoles, selectDesign, selectGrants } from '../designs/store.ts';
import { openLoopId } from '../ledger/allocation.ts';
import { balanceLockKey, movementLines, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import * as ledgerStore from '../ledger/store.ts';
import { settleBatchMax } from '../limits.ts';
import { formatMinor } from '../money.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import * as transferStore from '../transfers/store.ts';
import { posFailure, type PosFailure } from './errors.ts';
import { settlementKind } from './machine.ts';
import * as store from './store.ts';

export interface SettleInput {
  designId: string;
  /** The settler calling; null when the operator settles (the design's first active settler pays). */
  settlerId: string | null;
  limit: number;
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
  const { sql, commands } = core;

  async function settlerFor(designId: string, issuerId: string, settlerId: string | null): Promise<string | PosFailure> {
    if (settlerId !== null) {
      if (settlerId === issuerId || (await activeAgreementRoles(sql, designId, settlerId)).settler) return settlerId;
      return posFailure('not_settler', { description: 'Only the issuer or a profile with an active settler agreement settles this design.' });
    }
    const rows = await sql<{ member_id: string }[]>`
      select member_id from agreements where design_id = ${designId} and settler and state = 'active' order by created_at, id limit 1`;
    return rows[0]?.member_id ?? issuerId;
  }

  return {
    async settle(input) {
      const design = /^\d{10}$/.test(input.designId) ? await selectDesign(sql, input.designId) : null;
      if (!design || design.deleted_at) return posFailure('design_not_found');
      const settlerId = await settlerFor(design.id, design.issuer_id, input.settlerId);
      if (typeof settlerId !== 'string') return settlerId;
      const limit = Math.min(Math.max(input.limit, 1), settleBatchMax);
      const result = await commands.run('pos.settle', [{ kind: 'settle', id: design.id }, { kind: 'wallet', id: settlerId }], async (unit: Unit<Failure>) => {
        const rows = await store.selectPendingForUpdate(unit.tx, design.id, limit);
        const byRecipient = new Map<string, store.PendingSettlementRow[]>();
        for (const row of rows) byRecipient.set(row.recipient_id, [...(byRecipient.get(row.recipient_id) ?? []), row]);
        // The settler's and every recipient's balances in the one balance order, before any moves.
        await ledgerStore.lockBalances(unit.tx, [settlerId, ...byRecipient.keys()].map((id) => balanceLockKey(id, design.currency)));
        const transferIds: string[] = [];
        let total = 0n;
        for (const [recipientId, owed] of byRecipient) {
          const amount = owed.reduce((sum, row) => sum + row.amount, 0n);
          const transferId = await unit.newLongId('transfer');
          const snapshot = unit.create(transfer, transferId, { workflowType: 'settle', waitFor: 'none', at: unit.now.toISOString() });
          const views = recipientId === settlerId ? [{ profileId: settlerId, role: 'sender' }] : [{ profileId: settlerId, role: 'sender' }, { profileId: recipientId, role: 'recipient' }];
          await transferStore.insertTransfer(unit.tx, {
            id: transferId, workflowType: 'settle', senderId: settlerId, senderUid: `service:${settlerId}`, recipientId, recipientUid: `service:${recipientId}`,
            senderPersonalId: null, recipientPersonalId: null, currency: design.currency, amount, at: unit.now, state: stateFields(snapshot.value as TransferStateName),
            endAt: unit.now, activityCount: snapshot.context.activityCount, private: true, message: null, messageSubject: null, appdata: {},
            details: { design_id: design.id, settlement_ids: owed.map((row) => row.id), redemption_transfer_ids: [...new Set(owed.map((row) => row.redemption_transfer_id))] },
          }, views);
          if (recipientId !== settlerId) {
            const picked = await pickFromWallet(unit.tx, settlerId, [{ loopId: openLoopId, currency: design.currency, minor: amount }], null, { recipientId, accepts: () => true, nonPayment: false });
            if (!picked.ok) return unit.reject(sendFailure(picked.errors));
            await ledgerStore.moveNotes(unit.tx, walletHolder(settlerId), walletHolder(recipientId), picked.value, unit.now, {
              transferId, lines: movementLines(picked.value, 1, 'settle', settlerId, recipientId),
            });
          }
          await store.markSettled(unit.tx, owed.map((row) => row.id), transferId, unit.now);
          for (const row of owed) {
            if (!(await unit.load(settlementKind, row.id))) throw new Error(`settlement ${row.id} has no actor`);
            if (!unit.send(settlementKind, row.id, { type: 'settlement.settle', at: unit.now.toISOString(), settleTransferId: transferId })) throw new Error(`settlement ${row.id} was not pending`);
            if (row.role === 'redeemer') await store.settleReceivable(unit.tx, { profileId: row.redeemer_id, transferId: row.redemption_transfer_id, loopId: design.id, distTid: row.dist_tid, amount: row.amount });
          }
          transferIds.push(transferId);
          total += amount;
        }
        return { ok: true as const, settled: rows.length, total, transferIds };
      });
      if (!result.ok) return result;
      const left = (await store.pendingTotals(sql, design.id)).find((row) => row.currency === design.currency);
      return {
        ok: true, design_id: design.id, settler_id: settlerId, settled: result.settled, amount: formatMinor(result.total, design.currency), currency: design.currency,
        transfer_ids: result.transferIds, pending: Number(left?.count ?? 0n), pending_amount: formatMinor(left?.amount ?? 0n, design.currency),
      };
    },

    async pending(designId, callerId) {
      const design = /^\d{10}$/.test(designId) ? await selectDesign(sql, designId) : null;
      if (!design || design.deleted_at) return posFailure('design_not_found');
      if (design.issuer_id !== callerId) {
        const [roles, grants] = await Promise.all([activeAgreementRoles(sql, design.id, callerId), selectGrants(sql, design.id, callerId)]);
        if (!roles.settler && !roles.redeemer && !grants.includes('view_design_network')) return posFailure('not_settler', { description: 'Only the issuer, its settlers and redeemers see what is pending.' });
      }
      const pending = (await store.pendingTotals(sql, design.id)).map((row) => ({ currency: row.currency, count: Number(row.count), amount: formatMinor(row.amount, row.currency) }));
      return { ok: true, pending };
    },
  };
}
