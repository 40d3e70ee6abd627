// A business receives a payment code (POST /wallet/receive): the code releases up to its amount
// from the transfer's escrow; within the correction period a resubmission changes the amount received.
import type { Unit } from '../actors/command.ts';
import { openLoopId, sumPicks, type AmountEntry, type Pick } from '../ledger/allocation.ts';
import { balanceOf, escrowHolder, escrowPicks, movementLines, nextMovementNumber, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { failure, type Failure } from '../ledger/errors.ts';
import { movementsOf } from '../ledger/reads.ts';
import { paycodeCorrectionMs } from '../limits.ts';
import { formatDecimal, formatMinor, money, positiveMoneyOf, subtractMoney, type Decimal, type Money } from '../money.ts';
import { recordImmediateReceipt } from '../pos/records.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { redeemArrivedIn } from '../designs/redemption.ts';
import { accepts, redeemedLoopsOf } from './acceptance.ts';
import { applyIn, loadIn } from './changes.ts';
import { passGate, returnEscrowIn } from './gate.ts';
import type { TransfersContext } from './context.ts';
import { transfer } from './machine.ts';
import { paycodeMatches } from './paycode.ts';
import { normalizePaycode } from './paycode-secrets.ts';
import * as store from './store.ts';

export interface ReceiveInput {
  recipientId: string;
  paycode: string;
  currency: string;
  amount: Decimal;
  totalDue?: Decimal;
  totalTax?: Decimal;
  /** The calling token's device, for a business's report (`immediate` rows). */
  posDevice?: { holderId: string; deviceId: string } | null;
  /** A closed-loop token receives: a correction may not refund its open loop cash. */
  closedLoopOnly?: boolean;
}

export type ReceiveResult = { ok: true; transferId: string; amountReceived: bigint } | Failure;

/** A receipt checked outside the command: the amount, the code's row and the receiving profile. */
interface Receipt {
  input: ReceiveInput;
  amount: Money;
  totalDue: bigint | null;
  code: string;
  digest: string;
  found: store.PaycodeRow;
  recipient: ProfileRecord | null;
  /** The designs the recipient redeems by agreement: their brand cash leaves circulation as it arrives. */
  redeemed: ReadonlySet<string>;
}

function receiveAmounts(input: ReceiveInput): { ok: true; amount: Money; totalDue: bigint | null } | Failure {
  const parsed = positiveMoneyOf(input.amount, input.currency);
  if (!parsed.ok) return failure('invalid_amount', `amount: ${parsed.error}`);
  const amount = parsed.value;
  let totalDue: bigint | null = null;
  if (input.totalDue !== undefined) {
    const due = positiveMoneyOf(input.totalDue, input.currency);
    if (!due.ok || due.value.minor < amount.minor) return failure('invalid_amount', 'total_due must be at least amount');
    totalDue = due.value.minor;
  }
  if (input.totalTax !== undefined) {
    const tax = positiveMoneyOf(input.totalTax, input.currency);
    if (!tax.ok && tax.error !== 'not_positive') return failure('invalid_amount', 'total_tax is not an amount');
    const taxMinor = tax.ok ? tax.value.minor : 0n;
    if (taxMinor > (totalDue ?? amount.minor)) return failure('invalid_amount', 'total_tax must be at most total_due');
  }
  return { ok: true, amount, totalDue };
}

export async function receive(ctx: TransfersContext, input: ReceiveInput): Promise<ReceiveResult> {
  const { sql, commands } = ctx.core;
  const amounts = receiveAmounts(input);
  if (!amounts.ok) return amounts;
  const { amount, totalDue } = amounts;
  const code = normalizePaycode(input.paycode);
  const digest = await ctx.paycodeSecrets.digest(sql, code);
  const found = await store.selectPaycodeByCode(sql, digest, code);
  if (!found || found.recipient_id !== input.recipientId) return failure('code_not_found');
  if (found.currency !== input.currency || amount.minor > found.amount) return failure('code_limited', `the code releases at most ${formatMinor(found.amount, found.currency)} ${found.currency}`);
  const recipient = await ctx.profiles.get(sql, input.recipientId);
  const redeemed = recipient ? await redeemedLoopsOf(sql, recipient) : new Set<string>();
  const locks = [{ kind: 'wallet', id: found.sender_id }, { kind: 'wallet', id: found.recipient_id }, { kind: 'transfer', id: found.transfer_id }];
  const receipt: Receipt = { input, amount, totalDue, code, digest, found, recipient, redeemed };
  return commands.run('transfer.receive', locks, (unit: Unit<Failure>) => receiveIn(unit, receipt));
}

async function receiveIn(unit: Unit<Failure>, receipt: Receipt): Promise<ReceiveResult> {
  const { input, amount, totalDue, found } = receipt;
  const { state } = await loadIn(unit, found.transfer_id);
  const paycode = await store.selectPaycodeByTransfer(unit.tx, found.transfer_id);
  if (!paycode || !paycodeMatches(paycode, receipt.digest, receipt.code) || paycode.state === 'ended') return unit.reject(failure('code_not_found'));
  const details = { total_due: totalDue === null ? null : formatMinor(totalDue, input.currency), total_tax: input.totalTax ? formatDecimal(input.totalTax) : null };
  if (state === 'paycode') {
    const picks = await receiptIn(unit, receipt);
    await redeemReceivedIn(unit, receipt, picks, 2);
    await reportImmediateIn(unit, receipt, found.transfer_id, picks, 1n);
    await store.updatePaycode(unit.tx, found.transfer_id, { state: 'used', received: amount.minor, usedAt: unit.now }, unit.now);
    unit.cancelTimer(transfer, found.transfer_id, 'paycode_expire');
    await applyIn(unit, found.transfer_id, { type: 'transfer.paycode_receive', at: unit.now.toISOString() }, {
      money: amount, details: { ...details, amount_received: formatMinor(amount.minor, amount.currency) },
    });
    return { ok: true as const, transferId: found.transfer_id, amountReceived: amount.minor };
  }
  const withinCorrection = paycode.used_at !== null && unit.now.getTime() - paycode.used_at.getTime() <= paycodeCorrectionMs;
  if (state !== 'completed' || paycode.state !== 'used' || !withinCorrection) return unit.reject(failure('code_already_used'));
  // The correction period: resubmitting the code changes the amount received.
  if (amount.minor !== paycode.received) await correctIn(unit, receipt, money(amount.currency, paycode.received), details);
  return { ok: true as const, transferId: found.transfer_id, amountReceived: amount.minor };
}

/** Moves the difference between the amount received before and now, and records the new amount. */
async function correctIn(unit: Unit<Failure>, receipt: Receipt, received: Money, details: Record<string, unknown>): Promise<void> {
  const { amount, found } = receipt;
  const number = await nextMovementNumber(unit.tx, found.transfer_id);
  if (amount.minor > received.minor) {
    const picks = await correctionIn(unit, receipt, { fromId: found.sender_id, toId: found.recipient_id, amount: subtractMoney(amount, received), number, action: 'move' });
    await redeemReceivedIn(unit, receipt, picks, number + 1);
    await reportImmediateIn(unit, receipt, found.transfer_id, picks, 1n);
  } else {
    const picks = await correctionIn(unit, receipt, { fromId: found.recipient_id, toId: found.sender_id, amount: subtractMoney(received, amount), number, action: 'refund' });
    await reportImmediateIn(unit, receipt, found.transfer_id, picks, -1n);
  }
  await store.updatePaycode(unit.tx, found.transfer_id, { received: amount.minor }, unit.now);
  await applyIn(unit, found.transfer_id, { type: 'transfer.paycode_correct', at: unit.now.toISOString() }, {
    money: amount, details: { ...details, amount_received: formatMinor(amount.minor, amount.currency) },
  });
}

/** Brand cash a redeemer receives by agreement is redeemed and settled in the same command, with its report rows. */
async function redeemReceivedIn(unit: Unit, receipt: Receipt, picks: readonly Pick[], number: number): Promise<void> {
  const { found, redeemed } = receipt;
  const designIds = [...new Set(picks.filter((pick) => redeemed.has(pick.loopId) && pick.issuerId !== found.recipient_id).map((pick) => pick.loopId))];
  if (designIds.length === 0) return;
  await redeemArrivedIn(unit, { transferId: found.transfer_id, redeemerId: found.recipient_id, designIds, number, posDevice: receipt.input.posDevice ?? null });
}

/** A business's open loop receipts are rows of its received-and-receivable report (settled at once). */
async function reportImmediateIn(unit: Unit, receipt: Receipt, transferId: string, picks: readonly Pick[], sign: 1n | -1n): Promise<void> {
  const { recipient, input } = receipt;
  const openLoop = sumPicks(picks.filter((pick) => pick.loopId === openLoopId), input.currency).minor;
  if (!recipient || recipient.isIndividual || openLoop === 0n) return;
  await recordImmediateReceipt(unit.tx, { profileId: recipient.id, transferId, currency: input.currency, delta: sign * openLoop, posDevice: input.posDevice ?? null }, unit.now);
}

/** A payment code's receipt through the gate: `amount` of the escrow to the recipient, the rest back to the sender. */
async function receiptIn(unit: Unit<Failure>, receipt: Receipt): Promise<Pick[]> {
  const { input, amount, found, recipient, redeemed } = receipt;
  let rest = false;
  const passed = await passGate(unit, {
    kind: 'release',
    transferId: found.transfer_id,
    balances: { profileIds: [found.recipient_id, found.sender_id], currencies: [input.currency] },
    // The sender's own code: the recipient takes what the sender offered.
    authority: { off: 'sender_own_cash' },
    // The paycode itself: one receipt, then corrections in place.
    dedup: { off: 'own_key_store' },
    cash: async () => {
      const taken = await escrowPicks(unit.tx, found.transfer_id, amount);
      rest = taken.rest;
      return taken.picks;
    },
    holding: recipient ? { senderId: found.sender_id, recipient: { id: recipient.id, isIndividual: recipient.isIndividual }, redeemed } : { off: 'no_recipient_profile' },
    transfer: { off: 'recorded_by_path' },
    move: { from: escrowHolder(found.transfer_id), to: walletHolder(found.recipient_id), lines: (picks) => movementLines(picks, 1, 'move', found.sender_id, found.recipient_id) },
    // The rest goes back to the sender through the gate, as every escrow return does.
    after: async () => {
      if (rest) await returnEscrowIn(unit, found.transfer_id, found.sender_id);
    },
  });
  if (!passed.ok) return unit.reject(passed);
  return passed.picks;
}

/** A paycode correction's move through the gate: more to the recipient, or a refund to the sender. */
async function correctionIn(unit: Unit<Failure>, receipt: Receipt, leg: { fromId: string; toId: string; amount: Money; number: number; action: 'move' | 'refund' }): Promise<Pick[]> {
  const { input, found, recipient, redeemed } = receipt;
  const toRecipient = leg.action === 'move';
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId: found.transfer_id,
    balances: { profileIds: [leg.fromId, leg.toId], currencies: [input.currency] },
    // More to the recipient: the sender's own code offered it.
    authority: toRecipient ? { off: 'sender_own_cash' } : { closedLoopOnly: input.closedLoopOnly === true, fieldName: 'amount' },
    // The paycode itself: one transfer, corrected in place.
    dedup: { off: 'own_key_store' },
    cash: async () => {
      const entries = toRecipient ? [{ loopId: 'any', currency: leg.amount.currency, minor: leg.amount.minor }] : await refundEntries(unit, found, leg.amount);
      if (!entries) return failure('code_limited', 'a correction refunds only cash this code brought that the recipient still holds (brand cash redeemed as it arrived cannot come back)');
      const picked = await pickFromWallet(unit.tx, leg.fromId, entries, null, {
        recipientId: leg.toId, accepts: (note) => accepts(note, toRecipient ? recipient : null), nonPayment: !toRecipient, at: unit.now,
      });
      if (picked.ok) return picked.value;
      return failure('code_limited', toRecipient ? 'the sender no longer holds enough cash' : 'the recipient no longer holds enough cash to refund');
    },
    holding: !toRecipient ? { off: 'refund' }
      : recipient ? { senderId: found.sender_id, recipient: { id: recipient.id, isIndividual: recipient.isIndividual }, redeemed } : { off: 'no_recipient_profile' },
    transfer: { off: 'recorded_by_path' },
    move: { from: walletHolder(leg.fromId), to: walletHolder(leg.toId), lines: (picks) => movementLines(picks, leg.number, leg.action, leg.fromId, leg.toId) },
  });
  if (!passed.ok) return unit.reject(passed);
  return passed.picks;
}

/**
 * What a correction down may take back from the recipient, per loop: the cash this code brought it
 * (its receipt and corrections up) less what was refunded or redeemed as it arrived, and no more
 * than the recipient holds of that loop; open loop cash first. Null when that cannot cover `amount`:
 * a refund never pays back in other cash than the code brought.
 */
async function refundEntries(unit: Unit<Failure>, found: { transfer_id: string; recipient_id: string }, amount: Money): Promise<AmountEntry[] | null> {
  const { currency } = amount;
  const net = new Map<string, bigint>();
  for (const line of await movementsOf(unit.tx, [found.transfer_id])) {
    if (line.currency !== currency) continue;
    const sign = line.to_id === found.recipient_id && line.action === 'move' ? 1n : line.from_id === found.recipient_id && (line.action === 'refund' || line.action === 'redeem') ? -1n : 0n;
    net.set(line.loop_id, (net.get(line.loop_id) ?? 0n) + sign * line.amount);
  }
  const loops = [...net.keys()].sort((left, right) => (left === openLoopId ? -1 : right === openLoopId ? 1 : left.localeCompare(right)));
  const entries: AmountEntry[] = [];
  let left = amount.minor;
  for (const loopId of loops) {
    if (left === 0n) break;
    const held = await balanceOf(unit.tx, found.recipient_id, loopId, currency);
    const limit = [net.get(loopId)!, held, left].reduce((smallest, value) => (value < smallest ? value : smallest));
    if (limit <= 0n) continue;
    entries.push({ loopId, currency, minor: limit });
    left -= limit;
  }
  return left === 0n ? entries : null;
}
