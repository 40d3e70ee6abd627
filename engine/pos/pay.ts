// The one payment path of pull and processor: the checks outside the command, then one command that
// claims the dedup key, checks the sender's wallet and picks the brand cash under the shared balance
// locks; an answer (new or duplicate) is the transfer as the viewer sees it.
import type { Unit } from '../actors/command.ts';
import type { PosDevice } from '../designs/redemption.ts';
import { openLoopId, type AmountEntry } from '../ledger/allocation.ts';
import { balanceLockKey, balanceRowLocks, heldNotesOf, movementLines, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { accepts, redeemedLoopsOf } from '../transfers/service.ts';
import { passGate } from '../transfers/gate.ts';
import { idempotently, type DedupRequest } from '../transfers/idempotency.ts';
import type { PosContext } from './context.ts';
import { invalid } from './errors.ts';
import { parsePayment, type Parsed, type PaymentInput, type PaymentResult } from './fields.ts';
import { paymentTransfer, writePayment, type PaymentWrite } from './write-payment.ts';

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
  dedup: DedupRequest | null;
  parties: Parties;
}

/**
 * The one payment path of pull and processor: brand cash moves from the sender's wallet to the
 * recipient (movement `move`), brand cash the recipient redeems is redeemed and settled at once,
 * and the sale's outside part is recorded for the report. Refusals roll back everything.
 */
export async function pay(ctx: PosContext, kind: 'pull' | 'processor', parties: Parties, input: PaymentInput): Promise<PaymentResult> {
  const { sql } = ctx.core;
  const parsed = parsePayment(input);
  if ('error' in parsed) return parsed;
  // A merchant's report gets rows only from cash moved to it, or from a caller it authorised (its
  // own pull): a processor acts for the sender, so its non_service_amount rides only on brand cash.
  if (kind === 'processor' && !parsed.entries && parsed.serials === null) return invalid('amounts', 'a processor send moves brand cash: give amounts or serial_numbers');
  const dedup = dedupRequestOf(kind, parties, input, parsed);
  // A repeat answers before the serial numbers are read: they have moved since the first request.
  return idempotently<PaymentResult>(sql, dedup, ctx.core.clock.now(), () => payOnce(ctx, kind, parties, input, parsed, dedup), (transferId) => answer(ctx, transferId, true, parties.viewerId));
}

/** A payment that is not a repeat: its entries (from serial numbers too), then the command. */
async function payOnce(ctx: PosContext, kind: 'pull' | 'processor', parties: Parties, input: PaymentInput, parsed: Parsed, dedup: DedupRequest | null): Promise<PaymentResult | Duplicate> {
  const { sql, commands } = ctx.core;
  const { sender, recipient } = parties;
  let entries = parsed.entries;
  if (!entries && parsed.serials) {
    const fromSerials = await entriesFromSerials(ctx, sender.id, parsed.serials);
    if (!Array.isArray(fromSerials)) return fromSerials;
    entries = fromSerials;
  }
  const redeemed = await redeemedLoopsOf(sql, recipient);
  const currency = entries?.[0].currency ?? parsed.nonService!.currency;
  const balanceKeys = [sender.id, recipient.id].map((id) => balanceLockKey(id, currency));
  const payment: Payment = { kind, sender, recipient, entries, currency, parsed, input, parties, redeemed, dedup };
  const result = await commands.run(`pos.${kind}`, [{ kind: 'wallet', id: sender.id }], (unit: Unit<Failure | Duplicate>) => payIn(ctx, unit, payment), {
    shared: { rows: balanceRowLocks, keys: balanceKeys, takenByBody: true },
  });
  if (!result.ok) return result;
  return answer(ctx, result.transferId, false, parties.viewerId);
}

/** The dedup key of a payment, scoped to the caller that starts it, with what makes a repeat the same request. */
function dedupRequestOf(kind: 'pull' | 'processor', parties: Parties, input: PaymentInput, parsed: Parsed): DedupRequest | null {
  if (input.dedupId === undefined) return null;
  const amount = parsed.entries ? parsed.entries.reduce((total, entry) => total + entry.minor, 0n) : null;
  const currency = parsed.entries?.[0].currency ?? parsed.nonService?.currency ?? '';
  // Serial numbers name notes, not an amount: the parties and the currency make the request.
  return {
    ownerId: parties.dedupOwner, key: `${kind}:${input.dedupId}`, call: kind,
    terms: {
      senderId: parties.sender.id, recipientId: parties.recipient.id, serials: parsed.serials, nonService: parsed.nonService,
      amounts: parsed.entries?.map((entry) => ({ loopId: entry.loopId, currency: entry.currency, minor: entry.minor })) ?? null,
    },
    senderId: parties.sender.id, recipientId: parties.recipient.id, currency, amount: parsed.serials ? undefined : amount,
  };
}

/** The command body of a payment: one movement through the gate, the payment's own writes after its move. */
async function payIn(ctx: PosContext, unit: Unit<Failure | Duplicate>, payment: Payment) {
  const { sender, recipient, entries, dedup, redeemed } = payment;
  const transferId = await unit.newLongId('transfer');
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId,
    balances: { profileIds: [sender.id, recipient.id], currencies: [payment.currency] },
    // A processor or a terminal carries closed loop rights only: brand cash moves, open loop never.
    authority: { closedLoopOnly: true, fieldName: 'amounts' },
    dedup: dedup ?? { off: 'no_dedup_id' },
    cash: async () => {
      if (!entries) return [];
      const picked = await pickFromWallet(unit.tx, sender.id, entries, payment.parsed.serials, {
        recipientId: recipient.id, accepts: (note) => accepts(note, recipient, redeemed), nonPayment: false, recipientIsIndividual: recipient.isIndividual, brandCashOnly: true, at: unit.now,
      });
      return picked.ok ? picked.value : sendFailure(picked.errors);
    },
    holding: { senderId: sender.id, recipient: { id: recipient.id, isIndividual: recipient.isIndividual }, redeemed },
    transfer: paymentTransfer(payment),
    move: { from: walletHolder(sender.id), to: walletHolder(recipient.id), lines: (picks) => movementLines(picks, 1, 'move', sender.id, recipient.id) },
    after: (picks) => writePayment(unit, { ...payment, transferId, picks: [...picks] }),
  });
  if (!passed.ok) return unit.reject(passed);
  return { ok: true as const, transferId };
}

/** Builds amounts entries from whole serial numbers when the call names serials only. */
async function entriesFromSerials(ctx: PosContext, senderId: string, serials: bigint[]): Promise<AmountEntry[] | Failure> {
  const notes = await heldNotesOf(ctx.core.sql, senderId, serials);
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
