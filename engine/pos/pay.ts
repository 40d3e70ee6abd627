// The one payment path of pull and processor: the checks outside the command, then one command that
// claims the dedup key, checks the sender's wallet and picks the brand cash under the shared balance
// locks; an answer (new or duplicate) is the transfer as the viewer sees it.
import type { Unit } from '../actors/command.ts';
import type { PosDevice } from '../designs/redemption.ts';
import { openLoopId, type AmountEntry, type Pick } from '../ledger/allocation.ts';
import { balanceLockKey, balanceRowLocks, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { duplicate, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import * as ledgerStore from '../ledger/store.ts';
import { dedupWindowMs } from '../limits.ts';
import { wallet } from '../profiles/machine.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { accepts, redeemedLoopsOf } from '../transfers/service.ts';
import * as transferStore from '../transfers/store.ts';
import type { PosContext } from './context.ts';
import { invalid } from './errors.ts';
import { parsePayment, type PaymentInput, type PaymentResult } from './fields.ts';
import { writePayment, type PaymentWrite } from './write-payment.ts';

export interface Parties {
  sender: ProfileRecord;
  recipient: ProfileRecord;
  dedupOwner: string;
  personalId: string | null;
  posDevice: PosDevice | null;
  viewerId: string;
}

/** A checked payment, before its command gives it a transfer id and picks its cash. */
interface Payment extends Omit<PaymentWrite, 'transferId' | 'picks'> {
  entries: AmountEntry[] | null;
  dedupKey: string | undefined;
  parties: Parties;
}

/**
 * The one payment path of pull and processor: brand cash moves from the sender's wallet to the
 * recipient (movement `move`), brand cash the recipient redeems is redeemed and settled at once,
 * and the sale's outside part is recorded for the report. Refusals roll back everything.
 */
export async function pay(ctx: PosContext, kind: 'pull' | 'processor', parties: Parties, input: PaymentInput): Promise<PaymentResult> {
  const { sql, commands } = ctx.core;
  const parsed = parsePayment(input);
  if ('error' in parsed) return parsed;
  // A merchant's report gets rows only from cash moved to it, or from a caller it authorised (its
  // own pull): a processor acts for the sender, so its non_service_amount rides only on brand cash.
  if (kind === 'processor' && !parsed.entries && parsed.serials === null) return invalid('amounts', 'a processor send moves brand cash: give amounts or serial_numbers');
  const { sender, recipient } = parties;
  let entries = parsed.entries;
  if (!entries && parsed.serials) {
    const fromSerials = await entriesFromSerials(ctx, sender.id, parsed.serials);
    if (!Array.isArray(fromSerials)) return fromSerials;
    entries = fromSerials;
  }
  const dedupKey = input.dedupId === undefined ? undefined : `${kind}:${input.dedupId}`;
  if (dedupKey !== undefined) {
    const existing = await transferStore.selectDedupRow(sql, parties.dedupOwner, dedupKey);
    if (existing && existing.created_at.getTime() >= ctx.core.clock.now().getTime() - dedupWindowMs) return answer(ctx, existing.transfer_id, true, parties.viewerId);
  }
  const redeemed = await redeemedLoopsOf(sql, recipient);
  const currency = entries?.[0].currency ?? parsed.nonService!.currency;
  const balanceKeys = [sender.id, recipient.id].map((id) => balanceLockKey(id, currency));
  const payment: Payment = { kind, sender, recipient, entries, currency, parsed, input, parties, redeemed, dedupKey };
  const result = await commands.run(`pos.${kind}`, [{ kind: 'wallet', id: sender.id }], (unit: Unit<Failure | Duplicate>) => payIn(unit, payment), {
    shared: { rows: balanceRowLocks, keys: balanceKeys },
  });
  if (!result.ok && result.error === 'duplicate') {
    const again = await transferStore.selectDedup(sql, parties.dedupOwner, dedupKey!);
    if (!again) throw new Error('dedup key vanished');
    return answer(ctx, again, true, parties.viewerId);
  }
  if (!result.ok) return result;
  return answer(ctx, result.transferId, false, parties.viewerId);
}

/** The command body of a payment. */
async function payIn(unit: Unit<Failure | Duplicate>, payment: Payment) {
  const { sender, recipient, entries, parties, dedupKey } = payment;
  const transferId = await unit.newLongId('transfer');
  if (dedupKey !== undefined) {
    const claimed = await transferStore.claimDedup(unit.tx, parties.dedupOwner, dedupKey, transferId, unit.now, new Date(unit.now.getTime() - dedupWindowMs));
    if (!claimed) return unit.reject(duplicate());
  }
  const senderWallet = await unit.load(wallet, sender.id);
  if (!senderWallet || senderWallet.value !== 'active') {
    return unit.reject(sendFailure([{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: senderWallet?.value ?? null } }]));
  }
  let picks: Pick[] = [];
  if (entries) {
    const picked = await pickFromWallet(unit.tx, sender.id, entries, payment.parsed.serials, {
      recipientId: recipient.id, accepts: (note) => accepts(note, recipient, payment.redeemed), nonPayment: false, recipientIsIndividual: recipient.isIndividual, brandCashOnly: true,
    });
    if (!picked.ok) return unit.reject(sendFailure(picked.errors));
    picks = picked.value;
  }
  await writePayment(unit, { ...payment, transferId, picks });
  return { ok: true as const, transferId };
}

/** Builds amounts entries from whole serial numbers when the call names serials only. */
async function entriesFromSerials(ctx: PosContext, senderId: string, serials: bigint[]): Promise<AmountEntry[] | Failure> {
  const notes = await ledgerStore.selectNotes(ctx.core.sql, walletHolder(senderId), serials);
  if (notes.length !== serials.length) {
    const held = new Set(notes.map((note) => note.serial));
    return sendFailure([{ code: 'serial_not_held', field_name: 'serial_numbers', info: { serial_numbers: serials.filter((serial) => !held.has(serial)).map(String) } }]);
  }
  const currencies = new Set(notes.map((note) => note.currency));
  if (currencies.size > 1) return sendFailure([{ code: 'mixed_currency', field_name: 'serial_numbers', info: { currencies: [...currencies] } }]);
  if (notes.some((note) => note.loopId === openLoopId)) return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'serial_numbers', info: { loop_id: openLoopId } }]);
  const byLoop = new Map<string, AmountEntry>();
  for (const note of notes) {
    const entry = byLoop.get(note.loopId) ?? { loopId: note.loopId, currency: note.currency, minor: 0n };
    entry.minor += note.amount;
    byLoop.set(note.loopId, entry);
  }
  return [...byLoop.values()];
}

async function answer(ctx: PosContext, transferId: string, duplicate: boolean, viewerId: string): Promise<PaymentResult> {
  const detail = await ctx.queries.detail(viewerId, transferId);
  if (!detail.ok) return detail;
  return { ok: true, transferId, duplicate, transfer: detail.transfer };
}
