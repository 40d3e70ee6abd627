// Cash operations inside a command's transaction, the ledger's side of the gate
// (engine/transfers/gate.ts): pick cash from a wallet or an escrow, move it, issue it, record it
// redeemed. Cash is created only by issueNote and destroyed only by a move to the redeemed or
// expired sink, each with its ledger totals (countLeft, which the gate calls with the move).
import type { SharedRowLocks } from '../actors/command.ts';
import { sendNotesFirstBatch, sendNotesMax } from '../limits.ts';
import { addMoney, type Money } from '../money.ts';
import { transactionMarks, type Queryable, type TransactionSql } from '../storage/database.ts';
import { allocate, takeFirst, type AllocationOptions, type AmountEntry, type Note, type Parsed, type Pick } from './allocation.ts';
import * as store from './store.ts';
import type { Holder, MovementLine } from './store.ts';

export type { Holder, MovementLine };

export const walletHolder = (profileId: string): Holder => ({ kind: 'wallet', id: profileId });
export const escrowHolder = (transferId: string): Holder => ({ kind: 'transfer', id: transferId });

/**
 * The balance rows each transaction has locked, by balanceLockKey. Locks belong to the transaction,
 * so the commands of a shared transaction hold them together. Every lock statement of the ledger
 * records here what it takes; the gate's rung 0 reads it (lockedBalanceKeys).
 */
const lockedBalances = transactionMarks();

/** The balance keys (profile and currency, every loop of it) the transaction has locked so far. */
export function lockedBalanceKeys(tx: Queryable): ReadonlySet<string> {
  return lockedBalances.marked(tx);
}

/** Row-locks balances by key (balanceLockKey) in the one global order, and records them as the transaction's. */
export function lockBalances(tx: Queryable, keys: readonly string[]): Promise<void> {
  lockedBalances.mark(tx, keys);
  return store.lockBalances(tx, keys);
}

/** Wallet balances, the rows sends of different wallets share: shared transactions lock them first. */
export const balanceRowLocks: SharedRowLocks = Object.freeze({ table: 'balances', take: lockBalances });
export const balanceLockKey = store.balanceLockKey;

/** Groups picks into one movement's loops entries (same loop, currency and issuer summed). */
export function movementLines(picks: readonly Pick[], number: number, action: string, fromId: string | null, toId: string): MovementLine[] {
  const byLoop = new Map<string, MovementLine>();
  for (const pick of picks) {
    const key = `${pick.loopId}\u0000${pick.money.currency}\u0000${pick.issuerId}`;
    const line = byLoop.get(key);
    byLoop.set(key, line ? { ...line, money: addMoney(line.money, pick.money) } : { number, action, fromId, toId, loopId: pick.loopId, issuerId: pick.issuerId, money: pick.money });
  }
  return [...byLoop.values()];
}

/** Selects and allocates a wallet's notes for the entries (row-locked). */
export async function pickFromWallet(
  tx: TransactionSql,
  profileId: string,
  entries: readonly AmountEntry[],
  serials: bigint[] | null,
  options: AllocationOptions,
): Promise<Parsed<Pick[]>> {
  const currency = entries[0].currency;
  // Most sends are paid by the first few notes in spending order: lock only those, and read the
  // rest only when they fall short.
  let notes = await store.selectNotesForUpdate(tx, walletHolder(profileId), currency, serials, serials === null ? sendNotesFirstBatch : sendNotesMax, options.recipientId);
  if (serials === null && notes.length === sendNotesFirstBatch) {
    const first = allocate(notes, entries, options);
    if (first.ok) return first;
    // One entry: lock just the notes that cover it, however many the wallet holds. Several
    // entries: read the wallet's notes up to sendNotesMax.
    // A brand-cash-only pick skips open loop notes, which the running totals would count.
    const single = entries.length === 1 && !options.brandCashOnly ? entries[0] : null;
    const acceptanceKnown = single !== null && (single.loopId !== 'any' || options.nonPayment || options.recipientIsIndividual === true);
    notes = single && acceptanceKnown
      ? await store.selectNotesCovering(tx, walletHolder(profileId), { loopId: single.loopId === 'any' ? null : single.loopId, currency, needed: single.minor, liveAt: options.at }, options.recipientId, false)
      : single && single.loopId === 'any'
        ? await store.selectNotesCovering(tx, walletHolder(profileId), { loopId: null, currency, needed: single.minor, liveAt: options.at }, options.recipientId, true)
        : await store.selectNotesForUpdate(tx, walletHolder(profileId), currency, null, sendNotesMax, options.recipientId);
  }
  if (serials !== null) {
    const held = new Set(notes.map((note) => note.serial));
    const missing = serials.filter((serial) => !held.has(serial));
    if (missing.length > 0) {
      return { ok: false, errors: [{ code: 'serial_not_held', field_name: 'serial_numbers', info: { serial_numbers: missing.map(String) } }] };
    }
  }
  return allocate(notes, entries, options);
}

export async function heldNotes(tx: TransactionSql, transferId: string): Promise<Note[]> {
  return store.selectNotesForUpdate(tx, escrowHolder(transferId), null, null, sendNotesMax);
}

/** What a release of `amount` (or all) of a transfer's escrow takes (row-locked), oldest notes first, and whether some is left for the sender. */
export async function escrowPicks(tx: TransactionSql, transferId: string, amount: Money | null): Promise<{ picks: Pick[]; rest: boolean }> {
  const notes = await heldNotes(tx, transferId);
  const stray = amount === null ? undefined : notes.find((note) => note.currency !== amount.currency);
  if (stray) throw new Error(`escrow of ${transferId} holds ${stray.currency}, asked for ${amount!.currency}`);
  const total = notes.reduce((sum, note) => sum + note.amount, 0n);
  const taken = amount === null ? total : amount.minor;
  if (taken > total) throw new Error(`escrow of ${transferId} holds ${total}, asked for ${taken}`);
  return { picks: taken === 0n ? [] : takeFirst(notes, taken), rest: taken < total };
}

/**
 * Cash moved into a sink leaves the system: the redeemed or expired totals grow by the picks, per
 * loop and currency. Called by the gate with the move, never by a path.
 */
export async function countLeft(tx: TransactionSql, sink: 'redeemed' | 'expired', picks: readonly Pick[]): Promise<void> {
  const byLoop = new Map<string, { loopId: string; money: Money }>();
  for (const pick of picks) {
    const key = `${pick.loopId}\u0000${pick.money.currency}`;
    const entry = byLoop.get(key);
    byLoop.set(key, { loopId: pick.loopId, money: entry ? addMoney(entry.money, pick.money) : pick.money });
  }
  for (const entry of byLoop.values()) await (sink === 'redeemed' ? store.addRedeemed : store.addExpired)(tx, entry.loopId, entry.money.currency, entry.money.minor);
}

/** Makes sure each profile has its open loop row in the currency (see store.anchorBalances); sends do it before their lock statement. */
export function anchorWalletBalances(tx: TransactionSql, profileIds: readonly string[], currency: string): Promise<void> {
  return store.anchorBalances(tx, profileIds, profileIds.map(() => currency));
}

/** The balance keys of the profiles in every currency given, each once, in the one global order. */
export function walletBalanceKeys(profileIds: readonly string[], currencies: readonly string[]): string[] {
  return [...new Set(profileIds)].flatMap((profileId) => [...new Set(currencies)].map((currency) => balanceLockKey(profileId, currency))).sort();
}

/** The paired assertion of a movement: its lines carry exactly the picks, per loop and currency. */
export function assertLinesMatchPicks(lines: readonly MovementLine[], picks: readonly Pick[]): void {
  const totals = new Map<string, bigint>();
  const keyOf = (cash: { loopId: string; money: Money }) => `${cash.loopId}\u0000${cash.money.currency}`;
  for (const pick of picks) totals.set(keyOf(pick), (totals.get(keyOf(pick)) ?? 0n) + pick.money.minor);
  for (const line of lines) totals.set(keyOf(line), (totals.get(keyOf(line)) ?? 0n) - line.money.minor);
  for (const [key, left] of totals) if (left !== 0n) throw new Error(`movement lines differ from the picks by ${left} in ${key.replace('\u0000', '/')}`);
}

/** Moves picked notes between wallets and records the movement, after the paired assertion. */
export async function moveRecorded(tx: TransactionSql, from: Holder, to: Holder, picks: readonly Pick[], at: Date, recorded: { transferId: string; lines: readonly MovementLine[] }): Promise<void> {
  assertLinesMatchPicks(recorded.lines, picks);
  await store.moveNotes(tx, from, to, picks, at, recorded);
}

/** A wallet's balance of one loop and currency (read in the caller's transaction). */
export function balanceOf(tx: TransactionSql, profileId: string, loopId: string, currency: string): Promise<bigint> {
  return store.selectBalance(tx, profileId, loopId, currency);
}

/** The notes of the serial numbers a wallet holds (no lock). */
export function heldNotesOf(sql: Queryable, profileId: string, serials: bigint[]): Promise<Note[]> {
  return store.selectNotes(sql, walletHolder(profileId), serials);
}

// The ledger's rows as other domains write them inside their commands: through these, never its store.
/** Moves picked notes between holders and adjusts both wallets' balances (see store.moveNotes). */
export const moveNotes = store.moveNotes;
/** Inserts a transfer's movement lines. */
export const recordMovements = store.insertMovements;
/** Creates a new note in a wallet (issuance): the only way cash enters circulation, totals written with it. */
export const issueNote = store.insertIssuedNote;
/** The next free movement number of a transfer. */
export const nextMovementNumber = store.nextMovementNumber;
/** The movement rows lines become, as a read returns them. */
export const movementRows = store.movementRows;
/** A send's first statement: the transfer's number, the recipient wallet's state and the send's balances locked (see store.beginSend). */
export function beginSend(tx: Queryable, input: { lockProfileIds: readonly string[]; currency: string; recipientId: string | null }): ReturnType<typeof store.beginSend> {
  lockedBalances.mark(tx, input.lockProfileIds.map((profileId) => balanceLockKey(profileId, input.currency)));
  return store.beginSend(tx, input);
}
