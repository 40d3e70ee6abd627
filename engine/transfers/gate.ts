// The gate: the one function every movement of cash passes inside its command, passGate. It climbs
// one ladder, rung by rung in a fixed order, each refusal named (as TigerBeetle's create_transfer):
//   0. balances: the balance rows of every wallet the movement touches, locked in the one global
//      order (profile, currency, loop) before anything else, so no two paths wait in a cycle;
//   1. authority: a closed-loop token (POST /p/token) never moves open loop cash, wherever it goes
//      (a person, a reserve, a settlement, a bill, a retraction): open_loop_not_permitted;
//   2. wallets: the sender's wallet is active, the recipient's is not closed;
//   3. dedup: the key is claimed in the command, scoped to the caller that started the transfer; a
//      repeat of the same request answers the first transfer, another request 409 dedup_id_reused;
//   (the cash is picked here, under the locks; rung 1 is climbed again on the loops picked)
//   4. holding rules before the move: transferable, max_per_wallet;
//   5. the transfer row from its actor's snapshot, then the move after the paired assertion
//      (each movement's lines equal the picks per loop and currency);
//   6. max_per_wallet again after the move, read on the recipient's balance row the move itself
//      locked: a cap holds under any concurrency, and in a shared transaction too.
// A path describes its movement (Movement) and turns a rung off only by saying why (Off); the gate
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
  assertLinesMatchPicks, countLeft, escrowHolder, heldNotes, issueNote, lockWalletBalances, moveNotes, moveRecorded, recordMovements, walletHolder, type Holder, type MovementLine,
} from '../ledger/cash.ts';
import { duplicate, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import type { TransactionSql } from '../storage/database.ts';
import type { GateRefusal } from './errors.ts';
import { claimDedupIn, type DedupRequest } from './idempotency.ts';
import { transfer } from './machine.ts';
import { newTransfer, type TransferFields } from './new-transfer.ts';
import * as store from './store.ts';

/** Which cash the caller may move: a closed-loop token, brand cash only. */
export interface Authority {
  closedLoopOnly: boolean;
}

/** A rung the movement does not climb, and why: the gate reads it, a reader of the path sees it. */
export interface Off {
  off: string;
}

function isOff<T extends object>(rung: T | Off): rung is Off {
  return 'off' in rung;
}

/**
 * What a movement is, from a closed set: the gate derives from it which wallets' states it reads.
 *   payment: a party pays from its wallet (a send, a pull, a settlement, a trade's leg, a payout,
 *     a plan's leg, a payment code's correction): the paying wallet is active, the receiving one not closed;
 *   release: cash a waiting transfer holds reaches its recipient (a payment code, an invitation, a
 *     trade's offered leg, a skipped wait): the receiving wallet is not closed;
 *   issue: new cash into a wallet (issuance, a deposit, brand cash under a plan): the wallet is not closed;
 *   sink: cash leaves circulation (redemption, expiry, a payout's deposit): no wallet decides;
 *   debt: what is owed already is paid (a reserve's release, a payout's fee): no wallet's state holds it back;
 *   escrow_return: a waiting transfer's cash back to its sender, whatever the wallet's state;
 *   record: a transfer is recorded and nothing moves (a bill, an offer's accept).
 */
export type MovementKind = 'payment' | 'release' | 'issue' | 'sink' | 'debt' | 'escrow_return' | 'record';

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

/** The transfer a movement records: ended now (the gate creates its actor and builds the row, new-transfer.ts), or a row the path's actor already started (newTransfer). */
export type TransferRecord =
  | { ended: TransferFields & { amount?: store.NewTransfer['amount'] }; views: { profileId: string; role: string }[] }
  | { row: store.NewTransfer; views: { profileId: string; role: string }[] };

/** A new note issued into a wallet: its loop, currency and amount are the movement's picks. */
export interface Issue {
  holderId: string;
  loopId: string;
  currency: string;
  issuerId: string;
  amount: bigint;
  expiresAt: Date | null;
  reserve?: bigint;
  planId?: string | null;
  distTransferId?: string | null;
}

/**
 * Rung 5's move: notes from one holder to another, or a new note issued; each movement number's
 * lines equal the picks. Lines off: cash into a transfer's escrow records its movement when the
 * escrow is released; escrow returned to its sender records none.
 */
export type Move =
  | { from: Holder; to: Holder; lines: ((picks: readonly Pick[]) => MovementLine[]) | Off }
  | { issue: Issue; lines: MovementLine[] };

/** Everything the gate needs to know about one movement of cash; every rung is on unless the path says why not. */
export interface Movement {
  kind: MovementKind;
  transferId: string;
  /** Rung 0: the wallets whose balances the movement changes, in the currencies it moves. */
  balances: { profileIds: readonly string[]; currencies: readonly string[] } | Off;
  /** Rung 1: the caller's authority; `loops`, the cash the path will move before it picks (a plan's open loop payments). */
  authority: (Authority & { fieldName: string; loops?: readonly string[] }) | Off;
  /**
   * Rung 2, derived from the kind: the states the path read under the locks, when its move does not
   * name the wallets (a design send) or it read them already (a send's first statement); otherwise
   * the gate reads the move's paying and receiving wallets itself.
   */
  wallets?: { read: () => Promise<WalletStates> };
  /** Rung 3: the dedup key of the request. */
  dedup: DedupRequest | Off;
  /** The cash: picks the path knows already (escrow, due notes, a new note), or picked now under the locks. */
  cash: readonly Pick[] | (() => Promise<Pick[] | Failure>);
  /** Rungs 4 and 6: the holding rules of the recipient. */
  holding: { senderId: string; recipient: RulesRecipient; redeemed: ReadonlySet<string> } | Off;
  /** Rung 5: the transfer row, or made from the picks (a waiting transfer whose amount is what was picked). */
  transfer: TransferRecord | ((picks: readonly Pick[]) => TransferRecord) | Off;
  /** Rung 5: the move. */
  move: Move | Off;
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
 */
export function passGate(unit: Unit, movement: Movement & { dedup: Off }): Promise<Passed | Failure>;
export function passGate(unit: Unit, movement: Movement): Promise<Passed | Failure | Duplicate>;
export async function passGate(unit: Unit, movement: Movement): Promise<Passed | Failure | Duplicate> {
  if (!isOff(movement.balances)) await lockWalletBalances(unit.tx, movement.balances.profileIds, movement.balances.currencies);
  const authority = isOff(movement.authority) ? null : movement.authority;
  const declared = authority?.loops ? authorityRefusal(authority, authority.loops, authority.fieldName) : null;
  if (declared) return declared;
  const walletsRefused = await walletRefusal(unit.tx, movement);
  if (walletsRefused) return walletsRefused;
  if (!isOff(movement.dedup) && !(await claimDedupIn(unit.tx, movement.dedup, movement.transferId, unit.now))) return duplicate();
  const cash = typeof movement.cash === 'function' ? await movement.cash() : [...movement.cash];
  if (!Array.isArray(cash)) return cash;
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
async function movedWalletStates(tx: TransactionSql, move: Move | Off): Promise<WalletStates> {
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
  await store.insertTransfer(unit.tx, newTransfer({ id: transferId, at, amount: record.ended.amount ?? sumPicks(picks) }, record.ended, snapshot), record.views);
}

/** Rung 5: moves (or issues) the picks after the paired assertion, every movement number's lines against the picks; answers an issued note's serial. */
async function moveIn(tx: TransactionSql, transferId: string, move: Move, picks: readonly Pick[], at: Date): Promise<bigint | null> {
  if ('from' in move && isOff(move.lines)) {
    await moveNotes(tx, move.from, move.to, picks, at);
    return null;
  }
  const lines = 'issue' in move ? move.lines : (move.lines as (picks: readonly Pick[]) => MovementLine[])(picks);
  if (lines.length > 0 && sumPicks(picks) === 0n) throw new Error('a movement with lines moves some cash');
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
    authority: { off: 'the sender\'s own cash comes home (retract() climbed the authority rung on the escrow\'s loops first)' },
    dedup: { off: 'the waiting transfer ends once: its state machine refuses a second end' },
    cash: held.map((note) => ({ ...note, whole: true })),
    holding: { off: 'the sender\'s own cash comes home' },
    transfer: { off: 'the transfer was recorded when it started' },
    move: { from: escrowHolder(transferId), to: walletHolder(senderId), lines: { off: 'a canceled transfer records no movement: the cash never left its sender' } },
  });
  if (!passed.ok) throw new Error(`returning an escrow is refused by no rung: ${passed.error}`);
}

/** The picks of a new note (issuance): what the paired assertion holds the issue's lines to. */
export function issuedPicks(issue: Issue): Pick[] {
  return [{ serial: 0n, loopId: issue.loopId, currency: issue.currency, issuerId: issue.issuerId, amount: issue.amount, whole: true }];
}
