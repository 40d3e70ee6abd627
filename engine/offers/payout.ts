// Moving an accept's cash: the design and plan an offer pays in, the balances an accept locks, the
// payout itself, and the canceled transfer answered when the business cannot pay.
import type { Unit } from '../actors/command.ts';
import { distributeIn, distributionSplit, payIn } from '../designs/circulation.ts';
import type { DesignRow, PlanRow } from '../designs/types.ts';
import { designById, planById } from '../designs/queries.ts';
import { balanceLockKey, walletHolder } from '../ledger/cash.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import { money } from '../money.ts';
import { transfer } from '../transfers/machine.ts';
import { newTransfer } from '../transfers/new-transfer.ts';
import { passGate } from '../transfers/gate.ts';
import type { OffersContext } from './context.ts';
import type { TransferFailed } from './errors.ts';
import { offerKind } from './machine.ts';
import type { OfferRow } from './store.ts';

/** The design and live plan an offer pays brand cash through (both null for open loop cash). */
export async function paying(ctx: OffersContext, offer: OfferRow) {
  if (!offer.design_id) return { design: null, plan: null };
  const [design, plan] = await Promise.all([designById(ctx.sql, offer.design_id), planById(ctx.sql, offer.plan_id!)]);
  return { design, plan: plan && !plan.deleted_at ? plan : null };
}

export function balanceKeys(offer: OfferRow, design: DesignRow | null, plan: PlanRow | null, accepterId: string): string[] {
  const fees = design && plan ? plan.recipients.filter((row) => row.recipient_type === 'static' && row.loop_id !== design.id).map((row) => row.recipient_id) : [];
  return [...new Set([offer.profile_id, accepterId, ...fees])].sort().map((id) => balanceLockKey(id, offer.currency));
}

/** Moves the cash of an accept: the accepter's price (service options), then the payout. */
export async function payoutIn(unit: Unit, offer: OfferRow, plan: PlanRow | null, design: DesignRow | null, accepterId: string, quantity: number, price: bigint, transferId: string): Promise<Failure | null> {
  let number = 1;
  const cost = money(offer.currency, price * BigInt(quantity));
  if (cost.minor > 0n) {
    const refused = await payIn(unit, accepterId, walletHolder(offer.profile_id), cost, { transferId, number, action: 'purchase', toId: offer.profile_id });
    if (refused) return refused;
    number += 1;
  }
  const total = money(offer.currency, offer.amount * BigInt(quantity));
  if (offer.design_id && !(design && plan)) return { ok: false, error: 'send_failed', detail: "the offer's design or plan is gone" };
  if (design && plan) {
    // A closed-loop token's offer moves no open loop cash of the business: the reserve is left owed,
    // and a plan since edited to pay fees at distribution refuses the accept.
    if (offer.reserve_owed && distributionSplit(total, plan.recipients, design.id).fees.length > 0) {
      return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'distribution_plan_id', info: { reason: "the offer's plan now pays fees in open loop cash, which its closed-loop maker may not commit" } }]);
    }
    return distributeIn(unit, { design, plan, senderId: offer.profile_id, recipientId: accepterId, money: total, transferId, number, reserveOwed: offer.reserve_owed });
  }
  return payIn(unit, offer.profile_id, walletHolder(accepterId), total, { transferId, number, action: 'move', toId: accepterId });
}

/** A canceled purchase_offer transfer for an accept whose cash could not move (the 503 answer). */
export async function failedTransfer(ctx: OffersContext, offer: OfferRow, accepterId: string, quantity: number, failure: Failure): Promise<TransferFailed> {
  const transferId = await ctx.commands.run('offer.accept_failed', [{ kind: offerKind.kind, id: offer.id }], async (unit) => {
    const id = await unit.newLongId('transfer');
    unit.create(transfer, id, { workflowType: 'purchase_offer', waitFor: 'invite', at: unit.now.toISOString() });
    const canceled = unit.send(transfer, id, { type: 'transfer.retract', at: unit.now.toISOString(), reason: 'not_available' })!;
    const passed = await passGate(unit, {
      kind: 'record',
      transferId: id,
      // The accept's cash could not move.
      authority: { off: 'nothing_moves' },
      // The failed accept took no acceptance row.
      dedup: { off: 'nothing_moves' },
      cash: [],
      holding: { off: 'nothing_moves' },
      transfer: {
        row: newTransfer({ id, at: unit.now, money: money(offer.currency, offer.amount * BigInt(quantity)) }, {
          workflowType: 'purchase_offer', senderId: offer.profile_id, recipientId: accepterId, recipientPersonalId: accepterId,
          details: { offer_id: offer.id, quantity, reason: 'not_available' },
        }, canceled),
        views: [{ profileId: offer.profile_id, role: 'sender' }, { profileId: accepterId, role: 'recipient' }],
      },
      move: { off: 'nothing_moves' },
    });
    if (!passed.ok) throw new Error(`recording a canceled accept is refused by no rung: ${passed.error}`);
    return id;
  });
  const detail = await ctx.ledger.queries.detail(accepterId, transferId);
  const code = failure.sendErrors?.[0]?.code ?? failure.error;
  return {
    ok: false, error: 'transfer_failed', transfer: detail.ok ? detail.transfer : { id: transferId },
    description: `The offer's transfer could not complete (${code ?? 'unavailable'}); nothing was taken from the offer's stock.`,
  };
}
