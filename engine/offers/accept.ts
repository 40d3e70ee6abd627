// Accepting an offer: one command in which the stock falls by a conditional update, the acceptance
// (dedup_id) and the purchase_offer transfer are written and the cash moves, so no concurrency
// oversells an offer; a confirming accept holds its stock and queues the confirmation email instead.
import type { Unit } from '../actors/command.ts';
import { designKind } from '../designs/machine.ts';
import { randomSecret, secretHash } from '../ids.ts';
import { duplicate, failure, type Duplicate } from '../ledger/errors.ts';
import { lockBalances } from '../ledger/cash.ts';
import { offerConfirmCodeBytes } from '../limits.ts';
import { formatMinor, money } from '../money.ts';
import { wallet } from '../profiles/machine.ts';
import { transfer } from '../transfers/machine.ts';
import { newTransfer } from '../transfers/new-transfer.ts';
import { passGate } from '../transfers/gate.ts';
import { onceByKey, requestDigest, type KeyRecord, type KeyedRequest } from '../transfers/idempotency.ts';
import { requestConfirmationIn } from './confirmation.ts';
import type { OffersContext } from './context.ts';
import { holdingRulesRefusal, invalid, offerFailure, payoutRefused } from './errors.ts';
import { offerKind } from './machine.ts';
import { balanceKeys, failedTransfer, payoutIn } from './payout.ts';
import { prepareAccept, type PreparedAccept } from './prepare.ts';
import * as store from './store.ts';
import type { AcceptInput, AcceptRefusal, AcceptResult } from './types.ts';

/** The accept's answer: the transfer as its accepter sees it, and their profile unless confirming. */
export async function answer(ctx: OffersContext, accepterId: string, transferId: string, confirming: boolean) {
  const [detail, profile] = await Promise.all([ctx.ledger.queries.detail(accepterId, transferId), confirming ? null : ctx.profiles.detail(ctx.sql, accepterId)]);
  if (!detail.ok) throw new Error(`transfer ${transferId} not visible to its accepter`);
  return { ok: true as const, transfer: detail.transfer, confirming, profile, accepterId };
}

/** Under the locks: the offer still open, both wallets active, within show_limit, then the stock taken. */
async function takeStockIn(unit: Unit<AcceptRefusal>, { input, offer, design, plan }: PreparedAccept): Promise<void> {
  await lockBalances(unit.tx, balanceKeys(offer, design, plan, input.accepterId));
  const [snapshot, businessWallet, accepterWallet] = await Promise.all([
    unit.load(offerKind, offer.id), unit.load(wallet, offer.profile_id), unit.load(wallet, input.accepterId),
  ]);
  if (!snapshot || snapshot.value !== 'open') return unit.reject(offerFailure('offer_closed'));
  if (businessWallet?.value !== 'active') return unit.reject(offerFailure('offer_not_available', { description: "The business's wallet is not active." }));
  if (accepterWallet?.value !== 'active') return unit.reject(offerFailure('offer_forbidden', { description: 'Your wallet is not active.' }));
  const already = await store.acceptedQuantity(unit.tx, offer.id, input.accepterId);
  if (already + input.quantity > offer.show_limit) {
    return unit.reject(invalid('quantity', `one person accepts at most ${offer.show_limit} of this offer (${already} already)`));
  }
  if ((await store.takeStock(unit.tx, offer.id, input.quantity, unit.now)) === null) return unit.reject(offerFailure('sold_out'));
}

/** The purchase_offer transfer of an accept through the gate: waiting for the confirmation link, or done now; its cash moves in payoutIn, leg by leg. */
async function insertPurchaseIn(unit: Unit<AcceptRefusal>, { input, offer, option, price, confirmEmail }: PreparedAccept, transferId: string, code: string | null): Promise<void> {
  const created = unit.create(transfer, transferId, { workflowType: 'purchase_offer', waitFor: code ? 'invite' : 'none', at: unit.now.toISOString() });
  const row = newTransfer({ id: transferId, at: unit.now, money: money(offer.currency, offer.amount * BigInt(input.quantity)) }, {
    // A confirming transfer names the email to confirm, so only following the link (not
    // POST /t/<id>/accept, which needs the UID confirmed already) completes it.
    workflowType: 'purchase_offer', senderId: offer.profile_id, recipientId: input.accepterId, recipientUid: code ? `email:${confirmEmail}` : undefined,
    recipientPersonalId: input.accepterId, private: input.private, appdata: input.appdata,
    details: {
      offer_id: offer.id, offer_title: offer.title, option_id: option.option_id, payment_type: option.payment_type, quantity: input.quantity,
      referrer_id: input.referrerId ?? null, message_rules: input.messageRules ?? [], price: formatMinor(price * BigInt(input.quantity), offer.currency),
    },
  }, created);
  const passed = await passGate(unit, {
    kind: 'record',
    transferId,
    // An accept is the accepter's own purchase: its legs pay as payoutIn says.
    authority: { off: 'legs_climb_it' },
    // The acceptance row holds the dedup_id (unique per accepter), inserted in this command.
    dedup: { off: 'own_key_store' },
    cash: [],
    holding: { off: 'held_by_issue' },
    transfer: { row, views: [{ profileId: offer.profile_id, role: 'sender' }, { profileId: input.accepterId, role: 'recipient' }] },
    // payoutIn moves the cash after the record, each open loop leg through the gate.
    move: { off: 'moved_by_path' },
  });
  if (!passed.ok) throw new Error(`recording an accept's transfer is refused by no rung: ${passed.error}`);
}

/**
 * The accept's command body: both wallets active, within show_limit, the stock taken, the
 * acceptance (dedup_id) and the purchase_offer transfer written, then the cash moved, or for a
 * confirming accept the email queued. A refusal rolls everything back.
 */
export async function acceptIn(ctx: OffersContext, unit: Unit<AcceptRefusal>, prepared: PreparedAccept, code: string | null): Promise<{ ok: true; transferId: string }> {
  const { input, offer, option, price, design, plan, confirmEmail } = prepared;
  await takeStockIn(unit, prepared);
  const transferId = await unit.newLongId('transfer');
  const acceptanceId = await unit.newShortId('offer_acceptance');
  const inserted = await store.insertAcceptance(unit.tx, {
    id: acceptanceId, offer_id: offer.id, accepter_id: input.accepterId, option_id: option.option_id, quantity: input.quantity, price,
    transfer_id: transferId, referrer_id: input.referrerId ?? null, dedup_id: input.dedupId ?? null, request_digest: input.dedupId === undefined ? null : acceptDigest(input), email: confirmEmail,
    confirmDigest: code ? secretHash(code) : null, state: code ? 'confirming' : 'completed',
  }, unit.now);
  if (!inserted) return unit.reject(duplicate());
  await insertPurchaseIn(unit, prepared, transferId, code);
  if (code) {
    requestConfirmationIn(ctx, unit, offer, acceptanceId, code, confirmEmail!);
    return { ok: true, transferId };
  }
  const refused = await payoutIn(unit, offer, plan, design, input.accepterId, input.quantity, price, transferId);
  if (refused) return unit.reject(payoutRefused(refused));
  return { ok: true, transferId };
}

/** What makes an accept the same request: the offer, its option, the quantity and the referrer. */
function acceptDigest(input: AcceptInput): string {
  return requestDigest({ call: 'offer_accept', terms: { offerId: input.offerId, optionId: input.optionId, quantity: input.quantity, referrerId: input.referrerId ?? null } });
}

/** An accept's dedup_id, kept in its acceptance: read by the accepter and key, claimed by the acceptance's insert. */
function acceptKey(input: AcceptInput): KeyedRequest<KeyRecord & { acceptance: store.AcceptanceRow }> | null {
  const dedupId = input.dedupId;
  if (dedupId === undefined) return null;
  return {
    read: async (db) => {
      const acceptance = await store.selectAcceptanceByDedup(db, input.accepterId, dedupId);
      return acceptance && { transferId: acceptance.transfer_id, digest: acceptance.request_digest, acceptance };
    },
    digest: acceptDigest(input),
    // Accepts keyed before migration 1050: the acceptance's own fields.
    sameAsUndigested: (_db, { acceptance }) => acceptance.offer_id === input.offerId && acceptance.option_id === input.optionId
      && acceptance.quantity === input.quantity && acceptance.referrer_id === (input.referrerId ?? null),
  };
}

/** An accept through the one idempotency wrapper: a repeat of the same request answers the first accept, another request 409 dedup_id_reused. */
export async function accept(ctx: OffersContext, input: AcceptInput): Promise<AcceptResult> {
  return onceByKey(ctx.sql, acceptKey(input), ctx.core.clock.now(), () => acceptOnce(ctx, input),
    ({ transferId, acceptance }) => answer(ctx, input.accepterId, transferId, acceptance.state === 'confirming'),
    () => failure('dedup_id_reused', 'this dedup_id already names another accept of this profile'));
}

/** An accept that is not a repeat: prepared, then its command; Duplicate when a concurrent accept took the key. */
async function acceptOnce(ctx: OffersContext, input: AcceptInput): Promise<AcceptResult | Duplicate> {
  const ready = await prepareAccept(ctx, input);
  if (!ready.ok) return ready;
  const { offer, design, confirmEmail } = ready.prepared;
  const lockRefs = [{ kind: offerKind.kind, id: offer.id }, { kind: 'wallet', id: input.accepterId }, { kind: 'wallet', id: offer.profile_id }];
  if (design) lockRefs.push({ kind: designKind.kind, id: design.id });
  const code = confirmEmail ? randomSecret(offerConfirmCodeBytes) : null;
  const outcome = await ctx.commands.run('offer.accept', lockRefs, (unit: Unit<AcceptRefusal>) => acceptIn(ctx, unit, ready.prepared, code));
  if (outcome.ok) return answer(ctx, input.accepterId, outcome.transferId, code !== null);
  if (outcome.error === 'payout') return holdingRulesRefusal(outcome.failure) ?? failedTransfer(ctx, offer, input.accepterId, input.quantity, outcome.failure);
  return outcome;
}
