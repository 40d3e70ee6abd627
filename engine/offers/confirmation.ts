// Accepts that wait for a confirmed email: the link mailed at accept, following it (the cash moves
// then, or the stock goes back when the business cannot pay), and the link's expiry by timer.
import type { Unit } from '../actors/command.ts';
import { designKind } from '../designs/machine.ts';
import type { DesignRow, PlanRow } from '../designs/types.ts';
import { secretHash } from '../ids.ts';
import { lockBalances } from '../ledger/cash.ts';
import { offerConfirmExpireMs } from '../limits.ts';
import { endsWaitingIn } from '../transfers/gate.ts';
import { transfer } from '../transfers/machine.ts';
import type { OffersContext } from './context.ts';
import { offerFailure, payoutRefused, type PayoutRefused, type TransferFailed } from './errors.ts';
import { offerKind } from './machine.ts';
import { balanceKeys, paying, payoutIn } from './payout.ts';
import * as store from './store.ts';
import type { AcceptanceRow, OfferRow } from './store.ts';
import type { OfferResult } from './types.ts';

type Json = Record<string, unknown>;

/** Inside the accept's command: the expiry timer of the link, and the email carrying it. */
export function requestConfirmationIn(ctx: OffersContext, unit: Unit, offer: OfferRow, acceptanceId: string, code: string, confirmEmail: string): void {
  const dueAt = new Date(unit.now.getTime() + offerConfirmExpireMs);
  unit.schedule(offerKind, offer.id, `confirm:${acceptanceId}`, dueAt, { type: 'offer.confirm_expire', at: dueAt.toISOString(), acceptanceId });
  const link = `${ctx.publicUrl()}/offer-confirm/${code}`;
  ctx.messages.queue(unit, {
    channel: 'email', to: confirmEmail, template: 'transfer-offer-confirm-link', subject: `Confirm your email to receive ${offer.title}`,
    text: `Follow this link to confirm your email address and receive "${offer.title}":\n\n${link}\n\nIf you did not accept this offer, ignore this message.`,
  });
}

/** The completed transfer as its accepter sees it, with the offer it came from. */
async function confirmedDetail(ctx: OffersContext, found: AcceptanceRow, offerId: string) {
  const read = await ctx.ledger.queries.detail(found.accepter_id, found.transfer_id);
  if (!read.ok) throw new Error(`transfer ${found.transfer_id} not visible to its accepter`);
  return { ok: true as const, transfer: read.transfer, offerId };
}

/**
 * The confirmation's command body: the acceptance still confirming and its transfer still waiting,
 * then the cash moves, the email becomes a confirmed UID and the transfer completes.
 */
async function completeIn(
  ctx: OffersContext, unit: Unit<PayoutRefused>, found: AcceptanceRow, offer: OfferRow, design: DesignRow | null, plan: PlanRow | null,
): Promise<{ ok: true } | { ok: false; gone: true }> {
  await lockBalances(unit.tx, balanceKeys(offer, design, plan, found.accepter_id));
  const row = await store.selectAcceptanceForUpdate(unit.tx, found.id);
  if (!row || row.state === 'canceled') return { ok: false as const, gone: true as const };
  if (row.state === 'completed') return { ok: true as const };
  unit.cancelTimer(offerKind, offer.id, `confirm:${row.id}`);
  const waiting = await unit.load(transfer, row.transfer_id);
  if (waiting?.value !== 'invite') {
    // The business retracted the waiting transfer: the accept ends and its stock goes back.
    await store.returnStock(unit.tx, offer.id, row.quantity, unit.now);
    await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'canceled', unit.now);
    return { ok: false as const, gone: true as const };
  }
  endsWaitingIn(unit, row.transfer_id);
  const refused = await payoutIn(unit, offer, plan, design, row.accepter_id, row.quantity, row.price, row.transfer_id);
  if (refused) return unit.reject(payoutRefused(refused));
  if (row.email) await ctx.profiles.addConfirmedUid(unit.tx, row.accepter_id, `email:${row.email}`);
  if (!(await ctx.ledger.transfers.applyIn(unit, row.transfer_id, { type: 'transfer.invite_accept', at: unit.now.toISOString() }))) {
    throw new Error(`transfer ${row.transfer_id} of a confirming accept was not waiting`);
  }
  await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'completed', unit.now);
  return { ok: true as const };
}

/** The business cannot pay: the waiting transfer is canceled and the stock goes back. */
async function cancelConfirming(ctx: OffersContext, found: AcceptanceRow, offer: OfferRow): Promise<TransferFailed> {
  await ctx.commands.run('offer.confirm_failed', [{ kind: offerKind.kind, id: offer.id }], async (unit) => {
    const row = await store.selectAcceptanceForUpdate(unit.tx, found.id);
    if (!row || row.state !== 'confirming') return;
    await unit.load(transfer, row.transfer_id);
    await ctx.ledger.transfers.applyIn(unit, row.transfer_id, { type: 'transfer.retract', at: unit.now.toISOString(), reason: 'not_available' });
    await store.returnStock(unit.tx, offer.id, row.quantity, unit.now);
    await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'canceled', unit.now);
  });
  const read = await ctx.ledger.queries.detail(found.accepter_id, found.transfer_id);
  return { ok: false, error: 'transfer_failed', description: "The offer's transfer could not complete; the offer's stock was given back.", transfer: read.ok ? read.transfer : { id: found.transfer_id } };
}

/** Following the link in the confirmation email: the accept completes, once. */
export async function confirm(ctx: OffersContext, code: string): Promise<OfferResult<{ transfer: Json; offerId: string }> | TransferFailed> {
  const found = /^[A-Za-z0-9_-]{16,64}$/.test(code) ? await store.selectAcceptanceByDigest(ctx.sql, secretHash(code)) : null;
  if (!found || found.state === 'canceled') return offerFailure('confirmation_not_found');
  const offer = (await store.selectOffer(ctx.sql, found.offer_id))!;
  if (found.state === 'completed') return confirmedDetail(ctx, found, offer.id);
  const { design, plan } = await paying(ctx, offer);
  const lockRefs = [{ kind: offerKind.kind, id: offer.id }, { kind: 'wallet', id: found.accepter_id }, { kind: 'wallet', id: offer.profile_id }];
  if (design) lockRefs.push({ kind: designKind.kind, id: design.id });
  const done = await ctx.commands.run('offer.confirm', lockRefs, (unit: Unit<PayoutRefused>) => completeIn(ctx, unit, found, offer, design, plan));
  if (done.ok) return confirmedDetail(ctx, found, offer.id);
  if ('gone' in done) return offerFailure('confirmation_not_found');
  return cancelConfirming(ctx, found, offer);
}

/** A confirmation link not followed in time: the waiting transfer is canceled (reason expired) and the stock goes back. */
export async function expireConfirmationIn(ctx: OffersContext, unit: Unit, timer: { name: string; event: Record<string, unknown> }): Promise<void> {
  const event = timer.event as { type?: string; acceptanceId?: string };
  if (event.type !== 'offer.confirm_expire' || !event.acceptanceId) throw new Error(`offer timer ${timer.name} carries no known event`);
  const row = await store.selectAcceptanceForUpdate(unit.tx, event.acceptanceId);
  if (!row || row.state !== 'confirming') return;
  const waiting = await unit.load(transfer, row.transfer_id);
  if (waiting?.value === 'invite') await ctx.ledger.transfers.applyIn(unit, row.transfer_id, { type: 'transfer.invite_expire', at: unit.now.toISOString() });
  await store.returnStock(unit.tx, row.offer_id, row.quantity, unit.now);
  await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'canceled', unit.now);
}
