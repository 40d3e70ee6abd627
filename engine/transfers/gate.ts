// The gate: the one ladder a movement of cash between wallets climbs inside its command, rung by
// rung in a fixed order, each refusal named (as TigerBeetle's create_transfer):
//   0. balances: both wallets' balance rows locked in the one global order (profile, currency,
//      loop) before anything else, so no two paths wait on each other in a cycle;
//   1. authority: a closed-loop token (POST /p/token) never moves open loop cash, wherever it goes
//      (a person, a reserve, a settlement, a bill, a retraction): open_loop_not_permitted;
//   2. wallets: the sender's wallet is active, the recipient's is not closed;
//   3. dedup: the key is claimed in the command, scoped to the caller that started the transfer; a
//      repeat of the same request answers the first transfer, another request 409 dedup_id_reused;
//   4. holding rules before the move: transferable, max_per_wallet;
//   5. the move, after the paired assertion (movement lines equal the picks per loop and currency);
//   6. max_per_wallet again after the move, read on the recipient's balance row the move itself
//      locked: a cap holds under any concurrency, and in a shared transaction too.
// Paths call the rungs they need in this order; engine/pos/pay.ts climbs them all.
import type { Unit } from '../actors/command.ts';
import { holdingRulesProblem, type RulesRecipient } from '../designs/rules.ts';
import { openLoopId, sumPicks, type Pick } from '../ledger/allocation.ts';
import { lockWalletBalances, moveRecorded, walletHolder } from '../ledger/cash.ts';
import { duplicate, failure, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import type { MovementLine } from '../ledger/types.ts';
import { dedupWindowMs } from '../limits.ts';
import type { Queryable, TransactionSql } from '../storage/database.ts';
import * as store from './store.ts';

/** Which cash the caller may move: a closed-loop token, brand cash only. */
export interface Authority {
  closedLoopOnly: boolean;
}

/** Rung 0: the balances of every wallet the movement touches, in the one order. */
export function lockBalancesIn(tx: TransactionSql, profileIds: readonly string[], currencies: readonly string[]): Promise<void> {
  return lockWalletBalances(tx, profileIds, currencies);
}

/** Rung 1: open loop cash moved by a closed-loop token is refused. */
export function authorityRefusal(authority: Authority, loopIds: Iterable<string>, fieldName: string): Failure | null {
  if (!authority.closedLoopOnly) return null;
  for (const loopId of loopIds) {
    if (loopId === openLoopId) {
      return sendFailure([{ code: 'open_loop_not_permitted', field_name: fieldName, info: { loop_id: openLoopId, reason: 'this token may move brand cash only' } }]);
    }
  }
  return null;
}

/** Rung 2: the sender's wallet is active and the recipient's is not closed. */
export function walletStatesRefusal(senderState: string | null, recipientState: string | null): Failure | null {
  if (senderState !== 'active') return sendFailure([{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: senderState } }]);
  if (recipientState === 'closed') return sendFailure([{ code: 'recipient_wallet_closed', field_name: 'recipient_uid', info: {} }]);
  return null;
}

/** A request under a dedup key: the caller that owns the key, and what makes it the same request. */
export interface DedupRequest {
  ownerId: string;
  key: string;
  /** The sender asked for; undefined when the request names no profile yet (a bill to a customer it creates). */
  senderId: string | undefined;
  /** The recipient asked for; undefined when the request names no profile yet (an invitation, a bill's new customer). */
  recipientId: string | null | undefined;
  currency: string;
  /** The amount asked for; null when the request names none (its transfer moved nothing); undefined when not known before the move (serial numbers). */
  amount: bigint | null | undefined;
}

/** What a dedup key already answers: the first transfer, or a refusal when the request differs. */
export type DedupAnswer = { ok: true; transferId: string } | Failure;

/** Rung 3, outside the command: a live key's first transfer, compared with this request. */
export async function dedupRepeat(db: Queryable, request: DedupRequest, now: Date): Promise<DedupAnswer | null> {
  const row = await store.selectDedupRow(db, request.ownerId, request.key);
  if (!row || row.created_at.getTime() < now.getTime() - dedupWindowMs) return null;
  return compared(db, request, row.transfer_id);
}

/** Rung 3, after the command lost the race for its key: the winner, compared with this request. */
export async function dedupWinner(db: Queryable, request: DedupRequest): Promise<DedupAnswer> {
  const transferId = await store.selectDedup(db, request.ownerId, request.key);
  if (!transferId) throw new Error('dedup key vanished');
  return compared(db, request, transferId);
}

/**
 * Rung 3, the one comparison every path that takes a dedup_id uses: the first transfer answers a
 * repeat of the same request (parties, currency, amount); any other request is refused.
 */
export async function compared(db: Queryable, request: DedupRequest, transferId: string): Promise<DedupAnswer> {
  const first = await store.selectTransfer(db, transferId);
  if (!first) throw new Error(`dedup key names a missing transfer ${transferId}`);
  // A send's payment code may since have been taken for less: the amount asked is the code's.
  const paycode = first.workflow_type === 'profile_to_profile' && request.amount ? await store.selectPaycodeByTransfer(db, transferId) : null;
  const asked = paycode?.amount ?? first.amount;
  const same = (request.senderId === undefined || first.sender_id === request.senderId) && (request.recipientId === undefined || first.recipient_id === request.recipientId)
    && first.currency === request.currency
    && (request.amount === undefined || (request.amount === null ? first.amount === 0n : asked === request.amount));
  return same ? { ok: true, transferId } : failure('dedup_id_reused', 'this dedup_id already names another transfer of this caller');
}

/** Rung 3, inside the command: claims the key for the new transfer or rejects as a duplicate. */
export async function claimDedupIn(unit: Unit<Duplicate>, request: DedupRequest, transferId: string): Promise<void> {
  const claimed = await store.claimDedup(unit.tx, request.ownerId, request.key, transferId, unit.now, new Date(unit.now.getTime() - dedupWindowMs));
  if (!claimed) unit.reject(duplicate());
}

/** Rung 4: the holding rules of every brand cash loop picked, before the move. */
export async function holdingRefusal(tx: TransactionSql, picks: readonly Pick[], senderId: string, recipient: RulesRecipient, redeemed: ReadonlySet<string>): Promise<Failure | null> {
  const problem = await holdingRulesProblem(tx, picks, senderId, recipient, redeemed);
  return problem ? sendFailure([problem]) : null;
}

/** Rung 5: moves the picks from one wallet to another, recording the movement after the paired assertion. */
export function moveBetweenWallets(tx: TransactionSql, fromId: string, toId: string, picks: readonly Pick[], at: Date, recorded: { transferId: string; lines: readonly MovementLine[] }): Promise<void> {
  if (recorded.lines.length > 0 && sumPicks(picks) === 0n) throw new Error('a movement with lines moves some cash');
  return moveRecorded(tx, walletHolder(fromId), walletHolder(toId), picks, at, recorded);
}

/** Rung 6: max_per_wallet on what the recipient holds after the move (its balance row is locked by the move). */
export async function capRefusalAfterMove(tx: TransactionSql, picks: readonly Pick[], senderId: string, recipient: RulesRecipient, redeemed: ReadonlySet<string>): Promise<Failure | null> {
  if (recipient.id === null || !picks.some((pick) => pick.loopId !== openLoopId)) return null;
  const problem = await holdingRulesProblem(tx, picks, senderId, recipient, redeemed, true);
  return problem ? sendFailure([problem]) : null;
}

/** Writes a new transfer's row and its viewers: the one way another domain records a transfer it moves cash for. */
export const recordTransfer = store.insertTransfer;
