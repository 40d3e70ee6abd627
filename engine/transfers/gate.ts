// The gate: the one function every movement of cash passes inside its command, passGate. It climbs
// one ladder, rung by rung in a fixed order, each refusal named (as TigerBeetle's create_transfer):
//   0. balances: the balance rows of every wallet the movement touches, locked in the one global
//      order (profile, currency, loop) before anything else, so no two paths wait in a cycle; the
//      gate knows what each transaction locked (its command's shared locks, a send's first
//      statement), takes only the rest, and checks on the cash picked that every balance the move
//      changes is held: this rung is never off;
//   1. authority: a closed-loop token (POST /p/token) never moves open loop cash, wherever it goes
//      (a person, a reserve, a settlement, a bill, a retraction): open_loop_not_permitted;
//   2. wallets: the sender's wallet is active, the recipient's is not closed;
//   3. dedup: the key is claimed in the command, scoped to the caller that started the transfer; a
//      repeat of the same request answers the first transfer, another request 409 dedup_id_reused;
//      climbed once per transfer and transaction: a transfer's later movements name no request;
//   (the cash is picked here, under the locks; rung 1 is climbed again on the loops picked)
//   4. holding rules before the move: transferable, max_per_wallet;
//   5. the transfer row from its actor's snapshot, then the move after the paired assertion
//      (each movement's lines equal the picks per loop and currency);
//   6. max_per_wallet again after the move, read on the recipient's balance row the move itself
//      locked: a cap holds under any concurrency, and in a shared transaction too.
// A path describes its movement (Movement: what it is, its kind from a closed set) and turns a rung
// off only for one of that rung's reasons, a closed typed set defined once in ./rungs.ts (Off<Rung>;
// no free text): each reason lists the kinds it is sound for, and the gate throws, as a programming
// error, on a reason unsound for the movement's kind (a table lookup per rung turned off). The gate
// alone decides. Through it: pulls and processor sends, P2P sends, payment-code receipts, skips and
// corrections, accepted invitations, design sends, a plan's open loop legs and its brand cash
// issued (bills, offers), redemption and the reserve's release, bills, offer accepts, trades
// (started, and both legs of an accept), bank payouts and their settlement, settlements, expiry,
// issuance, fund-proxy deposits, and escrow returned to its sender (returnEscrowIn);
// docs/architecture.md lists what each turns off.
// Rung 3's wrapper for the checks outside a command (a repeat answers before it, the winner of a
// race after it) is ./idempotency.ts (onceByKey, idempotently; claimDedupIn for the send's pipelined
// first statements). The rung functions stay private, except walletStatesRefusal for a send's plan
// and authorityRefusal for cash a waiting transfer already holds (retraction, skip).
// Refusals take the one shape Refusal<Code> (./errors.ts); the rungs' own are GateRefusal.
import type { Unit } from '../actors/command.ts';
import { holdingRulesProblem, type RulesRecipient } from '../designs/rules.ts';
import { openLoopId, sumPicks, type Pick } from '../ledger/allocation.ts';
import {
  assertLinesMatchPicks, balanceLockKey, countLeft, escrowHolder, heldNotes, issueNote, lockBalances, lockedBalanceKeys, moveNotes, moveRecorded, recordMovements, walletBalanceKeys, walletHolder, type Holder, type MovementLine,
} from '../ledger/cash.ts';
import { duplicate, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import { money, type Money } from '../money.ts';
import type { Queryable, TransactionSql } from '../storage/database.ts';
import type { GateRefusal } from './errors.ts';
import { claimDedupIn, dedupClimbedIn, noteDedupClimbed, type DedupRequest } from './idempotency.ts';
import { transfer } from './machine.ts';
import { newTransfer, type TransferFields } from './new-transfer.ts';
import { assertOffSound, type MovementKind, type Off } from './rungs.ts';
import * as store from './store.ts';

/** Which cash the caller may move: a closed-loop token, brand cash only. */
export interface Authority {
  closedLoopOnly: boolean;
}

export type { MovementKind, Off } from './rungs.ts';

/** Whether the rung is turned off (narrows to the rung's Off, or to what it is when on). */
function isOff<T>(rung: T): rung is Extract<T, { off: string }> {
  return typeof rung === 'object' && rung !== null && 'off' in rung;
}

/** The kinds whose wallet rung reads the paying wallet (active) and the receiving one (not closed). */
const walletRung: Readonly<Record<MovementKind, { payer: boolean; payee: boolean }>> = {
  payment: { payer: true, payee: true },
  release: { payer: false, payee: true },
  issue: { payer: false, payee: true },
  sink: { payer: false, payee: false },
  debt: { payer: false, payee: false },
  escrow_return: { payer: false, payee: false },
  record: { payer: false, payee: false },
};

/** The wallet states a path read under the locks (null: no wallet); `sender` absent when no wallet pays. */
export interface WalletStates {
  sender?: string | null;
  recipient: string | null;
}

/**
 * The transfer a movement records: ended now (the gate creates its actor and builds the row with
 * newTransfer), or a row the path's actor already started (newTransfer too). An ended transfer names
 * its money, or only its currency when its amount is what the movement picks.
 */
export type TransferRecord =
  | { ended: TransferFields & ({ money: Money } | { currency: string }); views: { profileId: string; role: string }[] }
  | { row: store.NewTransfer; views: { profileId: string; role: string }[] };

/** A new note issued into a wallet: its loop, currency and amount are the movement's picks. */
export interface Issue {
  holderId: string;
  loopId: string;
  issuerId: string;
  money: Money;
  expiresAt: Date | null;
  reserve?: bigint;
  planId?: string | null;
  distTransferId?: string | null;
}

/**
 * Rung 5's move: notes from one holder to another, or a new note issued; each movement number's
 * lines equal the picks. Lines off: cash into a transfer's escrow ('escrow_in') records its movement
 * when the escrow is released; escrow returned to its sender ('escrow_return') records none.
 */
export type Move =
  | { from: Holder; to: Holder; lines: ((picks: readonly Pick[]) => MovementLine[]) | Off<'lines'> }
  | { issue: Issue; lines: MovementLine[] };

/** Everything the gate needs to know about one movement of cash; every rung is on unless the path names a reason of ./rungs.ts sound for its kind. */
export interface Movement {
  kind: MovementKind;
  transferId: string;
  /**
   * Rung 0: the wallets whose balances the movement changes, in the currencies it moves, locked by
   * the gate unless the transaction holds them already; absent when the command locked them before
   * (its shared locks, a send's first statement). Either way the gate checks, on the cash picked,
   * that every wallet balance the move changes is locked.
   */
  balances?: { profileIds: readonly string[]; currencies: readonly string[] };
  /** Rung 1: the caller's authority; `loops`, the cash the path will move before it picks (a plan's open loop payments). */
  authority: (Authority & { fieldName: string; loops?: readonly string[] }) | Off<'authority'>;
  /**
   * Rung 2, derived from the kind: the states the path read under the locks, when its move does not
   * name the wallets (a design send) or it read them already (a send's first statement); otherwise
   * the gate reads the move's paying and receiving wallets itself.
   */
  wallets?: { read: () => Promise<WalletStates> };
  /** Rung 3: the dedup key of the request; absent for a later movement of a transfer whose rung its transaction climbed (dedupRung). */
  dedup?: DedupRequest | Off<'dedup'>;
  /** The cash: picks the path knows already (escrow, due notes, a new note), or picked now under the locks. */
  cash: readonly Pick[] | (() => Promise<Pick[] | Failure>);
  /** Rungs 4 and 6: the holding rules of the recipient. */
  holding: { senderId: string; recipient: RulesRecipient; redeemed: ReadonlySet<string> } | Off<'holding'>;
  /** Rung 5: the transfer row, or made from the picks (a waiting transfer whose amount is what was picked). */
  transfer: TransferRecord | ((picks: readonly Pick[]) => TransferRecord) | Off<'transfer'>;
  /** Rung 5: the move. */
  move: Move | Off<'move'>;
  /** Reads sent with the transfer's row and the move, queued after them on the connection (a send's ProfileDetail). */
  alongside?: () => Promise<void>;
  /** The path's own writes after the move, before the cap is read again (redemption, receivables, the plan's split). */
  after?: (picks: readonly Pick[]) => Promise<Failure | null | void>;
}

/** What passed the gate: the cash it moved, and an issued note's serial number. */
export type Passed = { ok: true; picks: Pick[]; serial: bigint | null };

/**
 * The one entry point: climbs the ladder for the movement inside the command. A refusal is
 * answered, never thrown: the caller rejects it (unit.reject), which rolls back whatever the gate
 * wrote (a cap refused after the move). Duplicate: the dedup key was taken by a concurrent request.
 * A rung turned off for a reason unsound for the movement's kind throws, before anything is touched.
 */
export function passGate(unit: Unit, movement: Movement & { dedup?: Off<'dedup'> }): Promise<Passed | Failure>;
export function passGate(unit: Unit, movement: Movement): Promise<Passed | Failure | Duplicate>;
export async function passGate(unit: Unit, movement: Movement): Promise<Passed | Failure | Duplicate> {
  assertOffsSound(movement);
  await balancesRung(unit.tx, movement.kind, movement.balances);
  const authority = isOff(movement.authority) ? null : movement.authority;
  const declared = authority?.loops ? authorityRefusal(authority, authority.loops, authority.fieldName) : null;
  if (declared) return declared;
  const walletsRefused = await walletRefusal(unit.tx, movement);
  if (walletsRefused) return walletsRefused;
  if (!(await dedupRung(unit.tx, movement, unit.now))) return duplicate();
  const cash = typeof movement.cash === 'function' ? await movement.cash() : [...movement.cash];
  if (!Array.isArray(cash)) return cash;
  if (!isOff(movement.move)) assertBalancesHeld(unit.tx, movement.kind, movement.move, cash);
  const holding = isOff(movement.holding) ? null : movement.holding;
  const refused = (authority ? authorityRefusal(authority, cash.map((pick) => pick.loopId), authority.fieldName) : null)
    ?? (holding ? await holdingRefusal(unit.tx, cash, holding.senderId, holding.recipient, holding.redeemed) : null);
  if (refused) return refused;
  // The row, the move and the reads alongside go out together: they run in this order on the connection.
  const [, serial] = await Promise.all([
    isOff(movement.transfer) ? null : recordTransfer(unit, movement.transferId, typeof movement.transfer === 'function' ? movement.transfer(cash) : movement.transfer, cash),
    isOff(movement.move) ? null : moveIn(unit.tx, movement.transferId, movement.move, cash, unit.now),
    movement.alongside?.(),
  ]);
  const afterRefused = movement.after ? await movement.after(cash) : null;
  if (afterRefused) return afterRefused;
  // The cap again where the cash now sits in the recipient's wallet (not in an escrow).
  const credited = !isOff(movement.move) && ('issue' in movement.move || movement.move.to.kind === 'wallet');
  const overCap = holding && credited ? await capRefusalAfterMove(unit.tx, cash, holding.senderId, holding.recipient, holding.redeemed) : null;
  return overCap ?? { ok: true, picks: cash, serial };
}

/**
 * Rung 0: the balances the movement declares are locked by its transaction, in the one global order.
 * Those the transaction holds already (its command's shared locks, a send's first statement, an
 * earlier movement of the command) are not taken again; new ones must sort after every balance held,
 * or two commands could wait on each other in a cycle. Only the movements that follow another in
 * its command may break the order (outOfOrder): a debt (a plan's third party paid from a reserve,
 * known once the redeemed notes are read) and a sink (expiry of cash a retraction brought home
 * pays its reserve to the issuer); the rare cycle is found by Postgres and the command runs again
 * (40P01 is retried, engine/actors/command.ts).
 */
async function balancesRung(tx: TransactionSql, kind: MovementKind, balances: Movement['balances']): Promise<void> {
  if (balances === undefined) return;
  const held = lockedBalanceKeys(tx);
  const missing = walletBalanceKeys(balances.profileIds, balances.currencies).filter((key) => !held.has(key));
  if (missing.length === 0) return;
  const highest = [...held].reduce<string | undefined>((high, key) => (high === undefined || key > high ? key : high), undefined);
  if (highest !== undefined && missing[0] < highest && !outOfOrder.has(kind)) {
    throw new Error(`rung 0: a ${kind} movement would lock balance ${printableKey(missing[0])} after ${printableKey(highest)}, against the one lock order`);
  }
  await lockBalances(tx, missing);
}

/** The kinds whose balances may be locked after others of their command (see balancesRung). */
const outOfOrder: ReadonlySet<MovementKind> = new Set(['debt', 'sink']);

const printableKey = (key: string) => key.replace('\u0000', '/');

/** Rung 0, checked on the cash picked: every wallet balance the move changes is one its transaction locked. */
function assertBalancesHeld(tx: TransactionSql, kind: MovementKind, move: Move, picks: readonly Pick[]): void {
  const wallets = 'issue' in move ? [move.issue.holderId] : [move.from, move.to].filter((holder) => holder.kind === 'wallet').map((holder) => holder.id);
  const held = lockedBalanceKeys(tx);
  for (const profileId of wallets) {
    for (const currency of new Set(picks.map((pick) => pick.money.currency))) {
      if (!held.has(balanceLockKey(profileId, currency))) throw new Error(`rung 0: a ${kind} movement changes the balance ${profileId}/${currency}, which its transaction did not lock`);
    }
  }
}

/** Every rung the movement turns off, for a reason sound for its kind (./rungs.ts); a path that says otherwise throws. */
function assertOffsSound(movement: Movement): void {
  const { kind } = movement;
  if (isOff(movement.authority)) assertOffSound(kind, 'authority', movement.authority.off);
  if (movement.dedup !== undefined && isOff(movement.dedup)) assertOffSound(kind, 'dedup', movement.dedup.off);
  if (isOff(movement.holding)) assertOffSound(kind, 'holding', movement.holding.off);
  if (isOff(movement.transfer)) assertOffSound(kind, 'transfer', movement.transfer.off);
  if (isOff(movement.move)) assertOffSound(kind, 'move', movement.move.off);
  else if ('from' in movement.move && isOff(movement.move.lines)) assertOffSound(kind, 'lines', movement.move.lines.off);
}

/** Rung 1: open loop cash moved by a closed-loop token is refused. */
export function authorityRefusal(authority: Authority, loopIds: Iterable<string>, fieldName: string): GateRefusal | null {
  if (!authority.closedLoopOnly) return null;
  for (const loopId of loopIds) {
    if (loopId === openLoopId) {
      return sendFailure([{ code: 'open_loop_not_permitted', field_name: fieldName, info: { loop_id: openLoopId, reason: 'this token may move brand cash only' } }]);
    }
  }
  return null;
}

/** Rung 2 as the kind asks: the paying wallet's state (active) and the receiving one's (not closed). */
async function walletRefusal(tx: TransactionSql, movement: Movement): Promise<GateRefusal | null> {
  const rung = walletRung[movement.kind];
  if (!rung.payer && !rung.payee) {
    if (movement.wallets) throw new Error(`a ${movement.kind} movement reads no wallet states`);
    return null;
  }
  const states = movement.wallets ? await movement.wallets.read() : await movedWalletStates(tx, movement.move);
  const sender = rung.payer ? states.sender : undefined;
  if (rung.payer && sender === undefined) throw new Error(`a ${movement.kind} movement names its paying wallet`);
  return walletStatesRefusal(sender === undefined ? 'active' : sender, rung.payee ? states.recipient : null);
}

/** The states of the wallets a move takes from and brings to (escrows, sinks and reserves have none). */
async function movedWalletStates(tx: TransactionSql, move: Move | Off<'move'>): Promise<WalletStates> {
  if (isOff(move)) throw new Error('a movement that moves nothing reads its wallet states itself');
  const fromId = 'from' in move && move.from.kind === 'wallet' ? move.from.id : null;
  const toId = 'issue' in move ? move.issue.holderId : move.to.kind === 'wallet' ? move.to.id : null;
  const states = await store.selectWalletStates(tx, [fromId, toId].filter((id): id is string => id !== null));
  return { ...(fromId === null ? {} : { sender: states.get(fromId) ?? null }), recipient: toId === null ? null : states.get(toId) ?? null };
}

/** Rung 2: the sender's wallet is active and the recipient's is not closed. */
export function walletStatesRefusal(senderState: string | null, recipientState: string | null): GateRefusal | null {
  if (senderState !== 'active') return sendFailure([{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: senderState } }]);
  if (recipientState === 'closed') return sendFailure([{ code: 'recipient_wallet_closed', field_name: 'recipient_uid', info: {} }]);
  return null;
}

/**
 * Rung 3 for the command that ends a waiting transfer (a bill paid, an offer's accept confirmed),
 * called once it read the transfer's actor (row-locked) still waiting: the key was claimed when the
 * transfer started, and its machine takes the ending event once, so the movements need no key.
 */
export function endsWaitingIn(unit: Unit, transferId: string): void {
  noteDedupClimbed(unit.tx, transferId);
}

/** Rung 3 for a movement: claims its request's key, or notes the reason it has none, once per transfer and transaction. */
async function dedupRung(tx: Queryable, movement: Movement, now: Date): Promise<boolean> {
  const climbed = dedupClimbedIn(tx, movement.transferId);
  if (movement.dedup === undefined) {
    if (!climbed) throw new Error(`rung 3: a ${movement.kind} movement of transfer ${movement.transferId} names no dedup request, and no earlier movement of its transaction climbed the rung`);
    return true;
  }
  if (climbed) return true;
  if (isOff(movement.dedup)) {
    noteDedupClimbed(tx, movement.transferId);
    return true;
  }
  return claimDedupIn(tx, movement.dedup, movement.transferId, now);
}

/** Rung 4: the holding rules of every brand cash loop picked, before the move. */
async function holdingRefusal(tx: TransactionSql, picks: readonly Pick[], senderId: string, recipient: RulesRecipient, redeemed: ReadonlySet<string>): Promise<GateRefusal | null> {
  const problem = await holdingRulesProblem(tx, picks, senderId, recipient, redeemed);
  return problem ? sendFailure([problem]) : null;
}

/** Rung 5: the transfer's row and its viewers, an ended transfer's state from its new actor's snapshot. */
async function recordTransfer(unit: Unit, transferId: string, record: TransferRecord, picks: readonly Pick[]): Promise<void> {
  if ('row' in record) return store.insertTransfer(unit.tx, record.row, record.views);
  const at = unit.now;
  const snapshot = unit.create(transfer, transferId, { workflowType: record.ended.workflowType, waitFor: 'none', at: at.toISOString() });
  const money = 'money' in record.ended ? record.ended.money : sumPicks(picks, record.ended.currency);
  await store.insertTransfer(unit.tx, newTransfer({ id: transferId, at, money }, record.ended, snapshot), record.views);
}

/** Rung 5: moves (or issues) the picks after the paired assertion, every movement number's lines against the picks; answers an issued note's serial. */
async function moveIn(tx: TransactionSql, transferId: string, move: Move, picks: readonly Pick[], at: Date): Promise<bigint | null> {
  if ('from' in move && isOff(move.lines)) {
    await moveNotes(tx, move.from, move.to, picks, at);
    return null;
  }
  const lines = 'issue' in move ? move.lines : (move.lines as (picks: readonly Pick[]) => MovementLine[])(picks);
  if (lines.length > 0 && picks.every((pick) => pick.money.minor === 0n)) throw new Error('a movement with lines moves some cash');
  for (const number of new Set(lines.map((line) => line.number))) assertLinesMatchPicks(lines.filter((line) => line.number === number), picks);
  if ('from' in move) {
    await moveRecorded(tx, move.from, move.to, picks, at, { transferId, lines });
    // Cash into a sink leaves the system: the gate counts it with the move (redemption, expiry, a bank deposit).
    if (move.to.kind === 'redeemed' || move.to.kind === 'expired') await countLeft(tx, move.to.kind, picks);
    return null;
  }
  const serial = await issueNote(tx, move.issue, at);
  await recordMovements(tx, transferId, lines, at);
  return serial;
}

/** Rung 6: max_per_wallet on what the recipient holds after the move (its balance row is locked by the move). */
async function capRefusalAfterMove(tx: TransactionSql, picks: readonly Pick[], senderId: string, recipient: RulesRecipient, redeemed: ReadonlySet<string>): Promise<GateRefusal | null> {
  if (recipient.id === null || !picks.some((pick) => pick.loopId !== openLoopId)) return null;
  const problem = await holdingRulesProblem(tx, picks, senderId, recipient, redeemed, true);
  return problem ? sendFailure([problem]) : null;
}

/** A waiting transfer's escrow back to its sender through the gate (retraction, cancellation, expiry of the wait, a failed payout). */
export async function returnEscrowIn(unit: Unit, transferId: string, senderId: string): Promise<void> {
  const held = await heldNotes(unit.tx, transferId);
  if (held.length === 0) return;
  const passed = await passGate(unit, {
    kind: 'escrow_return',
    transferId,
    balances: { profileIds: [senderId], currencies: [...new Set(held.map((note) => note.currency))] },
    // retract() climbed the authority rung on the escrow's loops first.
    authority: { off: 'sender_own_cash' },
    dedup: { off: 'ends_once' },
    cash: held.map((note) => ({ serial: note.serial, loopId: note.loopId, issuerId: note.issuerId, money: money(note.currency, note.amount), whole: true })),
    holding: { off: 'sender_own_cash' },
    transfer: { off: 'recorded_by_path' },
    move: { from: escrowHolder(transferId), to: walletHolder(senderId), lines: { off: 'escrow_return' } },
  });
  if (!passed.ok) throw new Error(`returning an escrow is refused by no rung: ${passed.error}`);
}

/** The picks of a new note (issuance): what the paired assertion holds the issue's lines to. */
export function issuedPicks(issue: Issue): Pick[] {
  return [{ serial: 0n, loopId: issue.loopId, issuerId: issue.issuerId, money: issue.money, whole: true }];
}
