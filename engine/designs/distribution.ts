// Issuing brand cash: notes of a gl_design reach a recipient under a distribution plan, with the
// sender's open loop payment split as the plan says (docs/brand-cash.md):
//   - discount rows (before redemption): the share of the face value the sender does not pay;
//   - static rows (before redemption): fees paid at once to their recipients;
//   - after-redemption rows (redeemer, static): paid into the design's reserve now, so every unit
//     of fundable brand cash is backed by open loop cash until its redemption settles it;
//   - the rest: proceeds to the design's issuer (skipped when the issuer sends its own cash).
// Each note carries its reserve and plan; splits share the reserve exactly (engine/ledger/store.ts).
// Design sends, bills and offers all issue through distributeIn; circulation.ts re-exports these.
import type { Unit } from '../actors/command.ts';
import { openLoopId } from '../ledger/allocation.ts';
import { movementLines, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import type { Holder } from '../ledger/types.ts';
import { dayMs } from '../limits.ts';
import { money, type Money, subtractMoney, sumMoney, zeroMoney } from '../money.ts';
import { recordReceivables } from '../pos/records.ts';
import type { NewReceivable } from '../pos/types.ts';
import { issuedPicks, passGate, type Issue } from '../transfers/gate.ts';
import { designKind } from './machine.ts';
import { publishDesignIn } from './publish.ts';
import type { PosDevice } from './redemption.ts';
import { percentagePpm, ppmWhole } from './reserve.ts';
import * as store from './store.ts';
import type { DesignRow, PlanRecipient } from './store.ts';

/** A plan's split of a payment for brand cash, every part in the currency of the brand cash. */
export interface DistributionSplit {
  /** What the sender pays in all. */
  paid: Money;
  reserve: Money;
  fees: { recipientId: string; money: Money }[];
  proceeds: Money;
}

/** How a plan splits the sender's open loop payment for `amount` of brand cash (pure). */
export function distributionSplit(amount: Money, recipients: readonly PlanRecipient[], designId: string): DistributionSplit {
  const share = (ppm: bigint) => money(amount.currency, (amount.minor * ppm) / ppmWhole);
  let discountPpm = 0n;
  let reservePpm = 0n;
  const fees: { recipientId: string; money: Money }[] = [];
  for (const row of recipients) {
    const ppm = percentagePpm(row.percentage);
    if (row.loop_id === designId) reservePpm += ppm;
    else if (row.recipient_type === 'discount') discountPpm += ppm;
    else if (row.recipient_type === 'static') fees.push({ recipientId: row.recipient_id, money: share(ppm) });
  }
  const paid = subtractMoney(amount, share(discountPpm));
  const reserve = share(reservePpm);
  const proceeds = subtractMoney(subtractMoney(paid, reserve), sumMoney(fees.map((fee) => fee.money), amount.currency));
  if (proceeds.minor < 0n) throw new Error(`plan pays out more than the sender pays (${proceeds.minor})`);
  return { paid, reserve, fees: fees.filter((fee) => fee.money.minor > 0n), proceeds };
}

/** When a note issued now expires under the design's rule, or null. */
export function noteExpiry(design: DesignRow, now: Date): Date | null {
  if (design.expire_mode === 'absolute') return design.expire_absolute;
  if (design.expire_mode === 'relative' && design.expire_relative_days) return new Date(now.getTime() + design.expire_relative_days * dayMs);
  return null;
}

/**
 * Inside a command: the sender pays the plan's split of `amount` in open loop cash (movements from
 * `number` + 2 on), new brand cash notes reach the recipient (movements `number` issue and
 * `number` + 1 send_design), the design is published and its expiry scheduled. A sender short of
 * open loop cash gets the failure back (the caller rejects, so nothing stays).
 */
export async function distributeIn(
  unit: Unit,
  input: {
    /** `money`: the brand cash issued, in the design's currency. */
    design: DesignRow; plan: { id: string; recipients: PlanRecipient[] }; senderId: string; recipientId: string; money: Money; transferId: string; number: number;
    posDevice?: PosDevice | null;
    /** A closed-loop token's send: the reserve is not paid now but owed, settled at redemption by a settler (docs/decisions.md). */
    reserveOwed?: boolean;
  },
): Promise<Failure | null> {
  const { design, plan, money: amount, transferId } = input;
  if (amount.currency !== design.currency) throw new Error(`brand cash of design ${design.id} is ${design.currency}, not ${amount.currency}`);
  const at = unit.now;
  const expiresAt = noteExpiry(design, at);
  if (expiresAt && expiresAt.getTime() <= at.getTime()) {
    return sendFailure([{ code: 'design_expired', field_name: 'design_id', info: { expire_time: expiresAt.toISOString(), reason: "this design's brand cash would expire as it is issued" } }]);
  }
  const split = distributionSplit(amount, plan.recipients, design.id);
  const reserveFunded = input.reserveOwed ? zeroMoney(design.currency) : split.reserve;
  let number = input.number + 2;
  const payments: [Holder, Money, string, string][] = [[{ kind: 'reserve', id: design.id }, reserveFunded, 'reserve', design.id]];
  for (const fee of split.fees) payments.push([walletHolder(fee.recipientId), fee.money, 'fee', fee.recipientId]);
  if (design.issuer_id !== input.senderId) payments.push([walletHolder(design.issuer_id), split.proceeds, 'proceeds', design.issuer_id]);
  const receivables: NewReceivable[] = [];
  for (const [holder, paid, action, toId] of payments) {
    if (paid.minor === 0n) continue;
    const refused = await payIn(unit, input.senderId, holder, paid, { transferId, number, action, toId });
    if (refused) return refused;
    number += 1;
    // Open loop cash paid at distribution (a fee, the issuer's proceeds) is received and settled at once.
    if (holder.kind === 'wallet') {
      receivables.push({
        profileId: toId, transferId, posDeviceHolderId: input.posDevice?.holderId ?? null, posDeviceId: input.posDevice?.deviceId ?? null, distTid: transferId,
        settlementType: 'init_dist', receivedCurrency: design.currency, settleCurrency: design.currency, loopId: design.id, isFundable: false, tenderType: 'service',
        receivedAmount: paid.minor, settleFunded: 0n, settleReclaimed: 0n, settlePending: 0n, settleSettled: paid.minor,
      });
    }
  }
  await recordReceivables(unit.tx, receivables, at);
  // max_per_wallet is the gate's: before the issue and again on the row the issuance locked.
  const overCap = await issueIn(unit, transferId, input.number, {
    holderId: input.recipientId, loopId: design.id, issuerId: design.issuer_id, money: amount, expiresAt, reserve: reserveFunded.minor, planId: plan.id,
    distTransferId: transferId,
  });
  if (overCap) return overCap;
  // The terms the cash is sold under are fixed now: redemption reads these rows, never the live plan.
  await store.insertDistributionTerms(unit.tx, {
    dist_transfer_id: transferId, design_id: design.id, plan_id: plan.id, recipients: plan.recipients, distributor_id: input.senderId, currency: design.currency, amount: amount.minor,
    reserve_funded: reserveFunded.minor, reserve_owed: subtractMoney(split.reserve, reserveFunded).minor,
  }, at);
  await publishDesignIn(unit, design.id);
  if (expiresAt) unit.schedule(designKind, design.id, `expire:${expiresAt.toISOString()}`, expiresAt, { type: 'design.expire_due', at: expiresAt.toISOString() });
  return null;
}

/** The new brand cash note through the gate: movements `number` issue and `number` + 1 send_design, after the paired assertion. */
async function issueIn(unit: Unit, transferId: string, number: number, issue: Issue): Promise<Failure | null> {
  const line = { loopId: issue.loopId, issuerId: issue.issuerId, money: issue.money };
  const passed = await passGate(unit, {
    kind: 'issue',
    transferId,
    // The path refused a closed-loop token whose plan pays open loop cash now.
    authority: { off: 'checked_before_command' },
    cash: issuedPicks(issue),
    // As issued by the issuer: transferable binds holders, not the issuer's distribution; the cap binds the holder.
    holding: { senderId: issue.issuerId, recipient: { id: issue.holderId, isIndividual: true }, redeemed: new Set() },
    transfer: { off: 'recorded_by_path' },
    move: {
      issue,
      lines: [
        { number, action: 'issue', fromId: null, toId: issue.issuerId, ...line },
        { number: number + 1, action: 'send_design', fromId: issue.issuerId, toId: issue.holderId, ...line },
      ],
    },
  });
  if (passed.ok) return null;
  // Only the holding rungs refuse an issue (max_per_wallet): answered on the design send's field.
  if (!passed.sendErrors) throw new Error(`issuing brand cash is refused by no other rung: ${passed.error}`);
  return sendFailure(passed.sendErrors.map((problem) => (problem.code === 'recipient_wallet_closed' ? problem : { ...problem, field_name: 'amount' })));
}

/**
 * Moves open loop cash from a wallet to a holder through the gate, one movement line per issuer of
 * the notes: a leg of a transfer its path recorded (a plan's split, a bill's payment, an offer's price).
 */
export async function payIn(unit: Unit, fromId: string, to: Holder, amount: Money, movement: { transferId: string; number: number; action: string; toId: string }): Promise<Failure | null> {
  if (amount.minor === 0n) return null;
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId: movement.transferId,
    // These legs always pay open loop cash.
    authority: { off: 'checked_before_command' },
    cash: async () => {
      const picked = await pickFromWallet(unit.tx, fromId, [{ loopId: openLoopId, currency: amount.currency, minor: amount.minor }], null, { recipientId: null, accepts: () => true, nonPayment: false, at: unit.now });
      return picked.ok ? picked.value : sendFailure(picked.errors);
    },
    holding: { off: 'open_loop' },
    transfer: { off: 'recorded_by_path' },
    move: { from: walletHolder(fromId), to, lines: (picks) => movementLines(picks, movement.number, movement.action, fromId, movement.toId) },
  });
  return passed.ok ? null : passed;
}
