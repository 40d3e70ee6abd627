// Pure cash selection: parses the `amounts` parameter and picks which notes (and which parts of
// notes) pay for it. Specific entries are allocated before `any` entries; `any` takes cash most
// specific to the recipient first (their own brand cash, then other brand cash, then open loop).
import { money, parsePositiveAmount, sumMoney, type Money } from '../money.ts';
import { amountsEntriesMax, serialNumbersMax } from '../limits.ts';
import type { SendError } from './errors.ts';
import type { LoopSummaryRow } from './types.ts';

export const openLoopId = '0';

export interface Note {
  serial: bigint;
  loopId: string;
  currency: string;
  issuerId: string;
  amount: bigint;
  expiresAt: Date | null;
}

export interface AmountEntry {
  loopId: string | 'any';
  currency: string;
  minor: bigint;
}

/** Part (or all) of one note: `money` is the part taken, in the note's currency. */
export interface Pick {
  serial: bigint;
  loopId: string;
  issuerId: string;
  money: Money;
  whole: boolean;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; errors: SendError[] };

/** The `amounts` parameter as the edge read it: its entries, or why they do not read. */
export type ParsedAmounts = Parsed<AmountEntry[]>;

const amountEntryPattern = /^([0-9]{1,20}|any)-([A-Z]{3})-(\S+)$/;

export function parseAmounts(text: string): ParsedAmounts {
  const parts = text.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { ok: false, errors: [{ code: 'invalid_amounts', field_name: 'amounts', info: { reason: 'empty' } }] };
  if (parts.length > amountsEntriesMax) return { ok: false, errors: [{ code: 'invalid_amounts', field_name: 'amounts', info: { reason: 'too_many', max: amountsEntriesMax } }] };
  const entries: AmountEntry[] = [];
  for (const part of parts) {
    const match = amountEntryPattern.exec(part);
    if (!match) return { ok: false, errors: [{ code: 'invalid_amounts', field_name: 'amounts', info: { entry: part, reason: 'expected loop_id-currency-amount' } }] };
    const parsed = parsePositiveAmount(match[3], match[2]);
    if (!parsed.ok) return { ok: false, errors: [{ code: 'invalid_amounts', field_name: 'amounts', info: { entry: part, reason: parsed.error } }] };
    entries.push({ loopId: match[1], currency: match[2], minor: parsed.value.minor });
  }
  const mixed = mixedCurrencies(entries, 'amounts');
  if (mixed) return { ok: false, errors: [mixed] };
  return { ok: true, value: entries };
}

/** One send moves one currency: the refusal when the entries name more. */
export function mixedCurrencies(entries: readonly AmountEntry[], field: string): SendError | null {
  const currencies = new Set(entries.map((entry) => entry.currency));
  return currencies.size > 1 ? { code: 'mixed_currency', field_name: field, info: { currencies: [...currencies] } } : null;
}

export function parseSerialNumbers(text: string | undefined): Parsed<bigint[] | null> {
  if (text === undefined || text.trim() === '') return { ok: true, value: null };
  const parts = text.trim().split(/[\s,]+/);
  if (parts.length > serialNumbersMax || parts.some((part) => !/^\d{1,18}$/.test(part))) {
    return { ok: false, errors: [{ code: 'invalid_serial_numbers', field_name: 'serial_numbers', info: { max: serialNumbersMax } }] };
  }
  return { ok: true, value: [...new Set(parts)].map((part) => BigInt(part)) };
}

/** 0 = most specific to the recipient (their own brand cash), 1 = other brand cash, 2 = open loop. */
export function specificity(note: Pick | Note, recipientId: string | null): number {
  if (note.loopId !== openLoopId && recipientId !== null && note.issuerId === recipientId) return 0;
  if (note.loopId !== openLoopId) return 1;
  return 2;
}

function compareNotes(left: Note, right: Note, recipientId: string | null): number {
  const bySpecificity = specificity(left, recipientId) - specificity(right, recipientId);
  if (bySpecificity !== 0) return bySpecificity;
  const leftExpiry = left.expiresAt?.getTime() ?? Number.MAX_SAFE_INTEGER;
  const rightExpiry = right.expiresAt?.getTime() ?? Number.MAX_SAFE_INTEGER;
  if (leftExpiry !== rightExpiry) return leftExpiry - rightExpiry;
  return left.serial < right.serial ? -1 : left.serial > right.serial ? 1 : 0;
}

export interface AllocationOptions {
  recipientId: string | null;
  /** Whether the recipient accepts this cash. */
  accepts(note: Note): boolean;
  /** The sender chose to send cash the recipient does not accept. */
  nonPayment: boolean;
  /** An individual recipient accepts every loop (lets the store select by running total). */
  recipientIsIndividual?: boolean;
  /** The caller's token carries closed loop cash rights only: open loop notes are never picked. */
  brandCashOnly?: boolean;
  /** The command's time: a note that has expired by then is never picked, wherever it waits for the sweep (expiry is final). */
  at: Date;
}

/**
 * Picks notes for the entries. Never mixes accepted and unaccepted cash in one transfer; `any`
 * takes only accepted cash unless the sender chose non-payment.
 */
export function allocate(notes: readonly Note[], entries: readonly AmountEntry[], options: AllocationOptions): Parsed<Pick[]> {
  const sorted = [...notes].sort((left, right) => compareNotes(left, right, options.recipientId));
  const left = new Map<bigint, bigint>(sorted.map((note) => [note.serial, note.amount]));
  const taken = new Map<bigint, bigint>();
  const errors: SendError[] = [];
  const ordered = [...entries.filter((entry) => entry.loopId !== 'any'), ...entries.filter((entry) => entry.loopId === 'any')];
  for (const entry of ordered) {
    let needed = entry.minor;
    for (const note of sorted) {
      if (needed === 0n) break;
      if (options.brandCashOnly && note.loopId === openLoopId) continue;
      if (note.expiresAt !== null && note.expiresAt.getTime() <= options.at.getTime()) continue;
      if (note.currency !== entry.currency) continue;
      if (entry.loopId !== 'any' && note.loopId !== entry.loopId) continue;
      if (entry.loopId === 'any' && !options.nonPayment && !options.accepts(note)) continue;
      const available = left.get(note.serial)!;
      if (available === 0n) continue;
      const part = available < needed ? available : needed;
      left.set(note.serial, available - part);
      taken.set(note.serial, (taken.get(note.serial) ?? 0n) + part);
      needed -= part;
    }
    if (needed > 0n) {
      errors.push({ code: 'insufficient_funds', field_name: 'amounts', info: { loop_id: entry.loopId, currency: entry.currency, missing_minor: String(needed) } });
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const picks: Pick[] = sorted
    .filter((note) => taken.has(note.serial))
    .map((note) => ({ serial: note.serial, loopId: note.loopId, issuerId: note.issuerId, money: money(note.currency, taken.get(note.serial)!), whole: taken.get(note.serial) === note.amount }));
  const acceptedCount = picks.filter((pick) => options.accepts(sorted.find((note) => note.serial === pick.serial)!)).length;
  if (acceptedCount > 0 && acceptedCount < picks.length) {
    return { ok: false, errors: [{ code: 'mixed_acceptance', field_name: 'amounts', info: { reason: 'one transfer cannot mix accepted and unaccepted cash' } }] };
  }
  if (acceptedCount === 0 && picks.length > 0 && !options.nonPayment) {
    return { ok: false, errors: [{ code: 'cash_not_accepted', field_name: 'amounts', info: { reason: 'the recipient does not accept this cash; send it as non_payment' } }] };
  }
  return { ok: true, value: picks };
}

/** Picks the first `amount` of a list of held notes (paycode receipts take part of the escrow). */
export function takeFirst(notes: readonly Note[], amount: bigint): Pick[] {
  const picks: Pick[] = [];
  let needed = amount;
  for (const note of [...notes].sort((a, b) => (a.serial < b.serial ? -1 : 1))) {
    if (needed === 0n) break;
    const part = note.amount < needed ? note.amount : needed;
    picks.push({ serial: note.serial, loopId: note.loopId, issuerId: note.issuerId, money: money(note.currency, part), whole: part === note.amount });
    needed -= part;
  }
  if (needed > 0n) throw new Error(`held notes are short by ${needed}`);
  return picks;
}

/** The money the picks take, all in `currency` (throws when one is in another). */
export function sumPicks(picks: readonly Pick[], currency: string): Money {
  return sumMoney(picks.map((pick) => pick.money), currency);
}

/** Notes summed by loop, currency and issuer: the wallet's loop summary, for chosen serial numbers. */
export function summarizeByLoop(notes: readonly { loopId: string; currency: string; issuerId: string; amount: bigint }[]): LoopSummaryRow[] {
  const byLoop = new Map<string, LoopSummaryRow>();
  for (const note of notes) {
    const key = `${note.loopId}\u0000${note.currency}\u0000${note.issuerId}`;
    const row = byLoop.get(key) ?? { loop_id: note.loopId, currency: note.currency, issuer_id: note.issuerId, amount: 0n };
    row.amount += note.amount;
    byLoop.set(key, row);
  }
  return [...byLoop.values()];
}
