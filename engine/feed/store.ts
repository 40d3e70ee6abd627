// SQL of the receive feed: a profile's receipts (its completed transfers as recipient, with the
// amounts it received by loop) and the claim of due `feed.receipt` announcements from the outbox.
import type { Queryable } from '../storage/database.ts';

export interface ReceiptRow {
  transfer_id: string;
  workflow_type: string;
  recipient_id: string;
  sender_id: string | null;
  currency: string;
  amount: bigint;
  end_at: Date;
  message: string | null;
  /**
   * What the recipient received, per loop (empty when nothing moved through the ledger): open loop cash
   * that arrived (whatever it then paid out of it, a reserve or a fee); brand cash net of what it passed
   * on in the same transfer (a biller's own brand cash, issued to it and handed to its customer, is not received).
   */
  loops: { loop_id: string; currency: string; amount: string }[];
}

function receiptColumns(sql: Queryable) {
  return sql`t.id as transfer_id, t.workflow_type, t.recipient_id, t.sender_id, t.currency, t.amount, t.end_at, t.message,
    (select coalesce(json_agg(json_build_object('loop_id', l.loop_id, 'currency', l.currency, 'amount', l.amount::text) order by l.loop_id), '[]'::json)
      from (select m.loop_id, m.currency,
          sum(case when m.to_id = t.recipient_id then m.amount when m.loop_id <> '0' then -m.amount else 0 end) as amount
        from movements m
        where m.transfer_id = t.id and (m.to_id = t.recipient_id or m.from_id = t.recipient_id)
        group by m.loop_id, m.currency) l
      where l.amount > 0) as loops`;
}

export interface ReceiptsQuery {
  profileId: string;
  /** Only receipts strictly before this instant. */
  before: Date | null;
  /** Only receipts at or after this instant. */
  after: Date | null;
  limit: number;
}

/** A profile's receipts, newest first (limit + 1 rows, so the caller knows whether there are more). */
export async function selectReceipts(sql: Queryable, query: ReceiptsQuery): Promise<ReceiptRow[]> {
  const before = query.before ? sql`and t.end_at < ${query.before}` : sql``;
  const after = query.after ? sql`and t.end_at >= ${query.after}` : sql``;
  return sql<ReceiptRow[]>`
    select ${receiptColumns(sql)} from transfers t
    where t.recipient_id = ${query.profileId} and t.completed ${before} ${after}
    order by t.end_at desc, t.id desc limit ${query.limit + 1}`;
}

/** The receipts of the given transfers (completed, with a recipient), in one round trip. */
export async function selectReceiptsOf(sql: Queryable, transferIds: readonly string[]): Promise<ReceiptRow[]> {
  if (transferIds.length === 0) return [];
  return sql<ReceiptRow[]>`
    select ${receiptColumns(sql)} from transfers t
    where t.id = any(${transferIds as string[]}::text[]) and t.completed and t.recipient_id is not null`;
}

export interface Announcement {
  profile_id: string;
  transfer_id: string;
}

/** A claimed announcement: its outbox row and what it says. */
export interface Claimed {
  id: bigint;
  payload: Announcement;
}

/**
 * Marks up to `limit` due feed.receipt outbox rows delivered and answers them (one statement, skipping
 * rows another process holds, rows the outbox's own poller has leased (so none is announced twice) and
 * rows waiting to be retried after a failed announcement).
 */
export async function claimAnnouncements(sql: Queryable, at: Date, limit: number): Promise<Claimed[]> {
  return sql<Claimed[]>`
    update outbox set delivered_at = ${at}, attempts = attempts + 1, lease_until = null
    where id in (
      select id from outbox
      where kind = 'feed.receipt' and delivered_at is null and failed_at is null and next_attempt_at <= ${at}
        and (lease_until is null or lease_until < ${at})
      order by id limit ${limit}
      for update skip locked)
    returning id, payload`;
}

/** Hands claimed rows whose announcement failed back to the outbox, which retries them from `retryAt` (its policy for feed.receipt). */
export async function releaseAnnouncements(sql: Queryable, ids: readonly bigint[], retryAt: Date, error: string): Promise<void> {
  await sql`
    update outbox set delivered_at = null, next_attempt_at = ${retryAt}, last_error = ${error}
    where id = any(${ids.map(String)}::bigint[]) and kind = 'feed.receipt'`;
}
