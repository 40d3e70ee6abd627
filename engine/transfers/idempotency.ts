// Rung 3, idempotency, as one wrapper for every path that answers repeats by a key (as Formance's
// forgeLog): read the key, run the command that claims it in its transaction, re-read the winner of
// a race, and compare the request by its digest. Keys live in transfer_dedup (a dedup_id: sends,
// design sends, bills, payouts, trades, pulls, processor sends; claimed by passGate's dedup rung or
// claimDedupIn), in an offer's acceptance (its dedup_id) or in a fund proxy's deposit (its trace number).
import type { Duplicate } from '../ledger/errors.ts';
import { secretHash } from '../ids.ts';
import { dedupWindowMs } from '../limits.ts';
import { transactionMarks, type Queryable } from '../storage/database.ts';
import type { GateRefusal } from './errors.ts';
import * as store from './store.ts';

/**
 * The kinds of call whose repeats one key answers: those that take a dedup_id (one key space per
 * owner, so a key reused across kinds is another request), an offer's accept (its dedup_id kept in
 * the acceptance) and a fund proxy's deposit (its trace number kept in the deposit).
 */
export type DedupCall = 'send' | 'design_send' | 'bill' | 'payout' | 'trade' | 'pull' | 'processor' | 'offer_accept' | 'fund_deposit';

/** A request under a dedup key: the caller that owns the key, and what makes it the same request. */
export interface DedupRequest {
  ownerId: string;
  key: string;
  call: DedupCall;
  /**
   * Every field of the request as the caller gave it that decides what moves (recipient, loops,
   * design, plan, amounts, currency, serial numbers, account …): a repeat must give them all alike.
   */
  terms: Readonly<Record<string, unknown>>;
  // For keys claimed before requests were digested (migration 0310), the first transfer's fields:
  /** The sender asked for; undefined when the request names no profile yet (a bill to a customer it creates). */
  senderId: string | undefined;
  /** The recipient asked for; undefined when the request names no profile yet (an invitation, a bill's new customer). */
  recipientId: string | null | undefined;
  currency: string;
  /** The amount asked for; null when the request names none (its transfer moved nothing); undefined when not known before the move (serial numbers). */
  amount: bigint | null | undefined;
}

/** The digest a key keeps of its first request: sha256 of the kind of call and the terms in canonical JSON. */
export function requestDigest(request: { call: DedupCall; terms: DedupRequest['terms'] }): string {
  return secretHash(canonicalJson({ call: request.call, terms: request.terms }));
}

function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, field]) => field !== undefined).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A key as its store holds it: the transfer it names, its first request's digest, and when it was claimed. */
export interface KeyRecord {
  transferId: string;
  /** Null for a key claimed before requests were digested. */
  digest: string | null;
  /** When the key was claimed; read against `windowMs`. */
  claimedAt?: Date;
}

/**
 * A request under a key, wherever the key is kept (transfer_dedup for a dedup_id, an offer's
 * acceptance, a fund proxy's deposit): how to read it, the request's digest, and how a key claimed
 * before digests compares. The path's command claims the key and answers Duplicate when it is taken.
 */
export interface KeyedRequest<K extends KeyRecord> {
  read: (db: Queryable) => Promise<K | null>;
  /** requestDigest of the request. */
  digest: string;
  /** A key without a digest: whether its first request is this one, from what the path kept of it. */
  sameAsUndigested: (db: Queryable, record: K) => Promise<boolean> | boolean;
  /** How long a key holds (a dedup_id: its window); absent, for ever. */
  windowMs?: number;
}

/**
 * Rung 3 as one wrapper for every path that answers repeats by a key (as Formance's forgeLog): a
 * live key answers before the command, its first transfer for the same request (`repeated`) and
 * `reused` for any other; the command claims the key; a command that lost the race for it answers
 * Duplicate, and the winner is read again and compared the same way.
 */
export async function onceByKey<R extends { ok: boolean }, K extends KeyRecord, Reused>(
  db: Queryable, key: KeyedRequest<K> | null, now: Date, run: () => Promise<R | Duplicate>, repeated: (record: K) => R | Promise<R>, reused: (record: K) => Reused,
): Promise<R | Reused> {
  if (key) {
    const record = await key.read(db);
    const live = record && (key.windowMs === undefined || record.claimedAt!.getTime() >= now.getTime() - key.windowMs);
    if (live) return answeredBy(db, key, record, repeated, reused);
  }
  const result = await run();
  if (!isDuplicate(result)) return result;
  if (!key) throw new Error('a command without a key answered duplicate');
  const winner = await key.read(db);
  if (!winner) throw new Error('dedup key vanished');
  return answeredBy(db, key, winner, repeated, reused);
}

function isDuplicate(result: { ok: boolean }): result is Duplicate {
  return !result.ok && (result as { error?: string }).error === 'duplicate';
}

async function answeredBy<R, K extends KeyRecord, Reused>(
  db: Queryable, key: KeyedRequest<K>, record: K, repeated: (record: K) => R | Promise<R>, reused: (record: K) => Reused,
): Promise<R | Reused> {
  const same = record.digest === null ? await key.sameAsUndigested(db, record) : record.digest === key.digest;
  return same ? repeated(record) : reused(record);
}

/** The one answer to a dedup_id that names another request of its caller. */
export function dedupReused(detail = 'this dedup_id already names another request of this caller'): GateRefusal {
  return { ok: false, error: 'dedup_id_reused', detail };
}

/**
 * onceByKey for a dedup_id kept in transfer_dedup (sends, design sends, bills, payouts, trades,
 * pulls, processor sends): the command claims it with passGate's dedup rung, or claimDedupIn.
 */
export function idempotently<R extends { ok: boolean }>(
  db: Queryable, request: DedupRequest | null, now: Date, run: () => Promise<R | Duplicate>, repeated: (transferId: string) => R | Promise<R>,
): Promise<R | GateRefusal> {
  const key: KeyedRequest<KeyRecord> | null = request && {
    read: async (reader) => {
      const row = await store.selectDedupRow(reader, request.ownerId, request.key);
      return row && { transferId: row.transfer_id, digest: row.request_digest, claimedAt: row.created_at };
    },
    digest: requestDigest(request),
    sameAsUndigested: (reader, record) => sameAsFirstTransfer(reader, request, record.transferId),
    windowMs: dedupWindowMs,
  };
  return onceByKey(db, key, now, run, (record) => repeated(record.transferId), () => dedupReused());
}

/** A key claimed before requests were digested: the first transfer's parties, currency and amount. */
async function sameAsFirstTransfer(db: Queryable, request: DedupRequest, transferId: string): Promise<boolean> {
  const first = await store.selectTransfer(db, transferId);
  if (!first) throw new Error(`dedup key names a missing transfer ${transferId}`);
  // A send's payment code may since have been taken for less: the amount asked is the code's.
  const paycode = first.workflow_type === 'profile_to_profile' && request.amount ? await store.selectPaycodeByTransfer(db, transferId) : null;
  const asked = paycode?.amount ?? first.amount;
  return (request.senderId === undefined || first.sender_id === request.senderId) && (request.recipientId === undefined || first.recipient_id === request.recipientId)
    && first.currency === request.currency
    && (request.amount === undefined || (request.amount === null ? first.amount === 0n : asked === request.amount));
}

/** Rung 3, inside the command: claims the key for the new transfer with its request's digest (none without a key); false when a concurrent request holds it. */
export async function claimDedupIn(tx: Queryable, request: DedupRequest | null, transferId: string, now: Date): Promise<boolean> {
  noteDedupClimbed(tx, transferId);
  // A request without a dedup_id claims nothing: the rung is climbed with no statement.
  if (request === null) return true;
  return store.claimDedup(tx, { ownerId: request.ownerId, key: request.key, transferId, digest: requestDigest(request), at: now, windowStart: new Date(now.getTime() - dedupWindowMs) });
}

/**
 * The transfers whose dedup rung each transaction has climbed (a key claimed, or a movement that
 * says why it has none). A transfer's later movements in the transaction (a leg, a redemption, a
 * reserve's release, a send's move after its first statement claimed the key) need not say anything:
 * the gate knows the rung was climbed, and refuses a movement of a transfer whose rung was not.
 */
const dedupClimbed = transactionMarks();

/** Records that the transaction climbed the dedup rung for the transfer. */
export function noteDedupClimbed(tx: Queryable, transferId: string): void {
  dedupClimbed.mark(tx, [transferId]);
}

/** Whether the transaction climbed the dedup rung for the transfer. */
export function dedupClimbedIn(tx: Queryable, transferId: string): boolean {
  return dedupClimbed.marked(tx).has(transferId);
}
