// SQL for transfers, their per-profile views (history and sync), dedup keys and payment codes.
import type { MovementRow } from '../ledger/types.ts';
import type { Money } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import type { NewTransfer, TransferRow } from './types.ts';

export type { NewTransfer, TransferRow } from './types.ts';

const transferColumns = (sql: Queryable) =>
  sql`t.id, t.workflow_type, t.sender_id, t.sender_uid, t.recipient_id, t.recipient_uid, t.sender_personal_id, t.recipient_personal_id,
    t.currency, t.amount, t.start_at, t.updated_at, t.end_at, t.next_activity, t.completed, t.canceled, t.run_state, t.activity_count,
    t.reason, t.private, t.message, t.message_subject, t.appdata, t.details`;

/** The state a webhook filter names: completed, canceled or (neither) pending. */
function webhookStateOf(state: { completed: boolean; canceled: boolean }): 'completed' | 'canceled' | 'pending' {
  return state.completed ? 'completed' : state.canceled ? 'canceled' : 'pending';
}

/**
 * A CTE that queues one `webhook.deliver` outbox row per webhook of every stakeholder whose filters
 * match, in the statement that writes the change: a change and its deliveries commit together.
 */
function queueWebhooks(
  tx: Queryable,
  change: { transferId: string; workflowType: ReturnType<Queryable>; state: { completed: boolean; canceled: boolean }; activityCount: number; at: Date; profileIds: ReturnType<Queryable> },
) {
  const state = webhookStateOf(change.state);
  return tx`webhooked as (
      insert into outbox (kind, payload, created_at, next_attempt_at)
      select 'webhook.deliver', jsonb_build_object('webhook_id', w.id, 'profile_id', w.profile_id, 'transfer_id', ${change.transferId}::text,
          'activity_count', ${change.activityCount}::int), ${change.at}, ${change.at}
      from webhooks w
      where w.profile_id in (${change.profileIds})
        and (w.workflow_types is null or ${change.workflowType} = any(w.workflow_types))
        and (w.states is null or ${state}::text = any(w.states))
      order by w.profile_id, w.id
      returning 1)`;
}

/**
 * A CTE that queues the receive feed's `feed.receipt` outbox row when this write completes a transfer
 * with a recipient (engine/feed): announced after commit, like the webhooks. `recipient` selects the
 * recipient from the rows as they were before the statement, so an update queues only on completion.
 */
function queueReceipt(tx: Queryable, change: { transferId: string; at: Date; recipient: ReturnType<Queryable> }) {
  return tx`, fed as (
      insert into outbox (kind, payload, created_at, next_attempt_at)
      select 'feed.receipt', jsonb_build_object('profile_id', r.recipient_id, 'transfer_id', ${change.transferId}::text), ${change.at}, ${change.at}
      from (${change.recipient}) as r(recipient_id)
      where r.recipient_id is not null
      returning 1)`;
}

/**
 * A CTE that adds the views the statement inserts (the CTE `inserted`, returning profile_id) to
 * their profiles' counts (migration 1040), in profile order, so two statements take the count rows
 * in one order. Every insert into transfer_views carries it: history_sync's `remain` reads the count.
 */
function countViews(tx: Queryable, inserted: ReturnType<Queryable>) {
  return tx`counted as (
      insert into transfer_view_counts as c (profile_id, views)
      select profile_id, count(*) from ${inserted} group by profile_id order by profile_id
      on conflict (profile_id) do update set views = c.views + excluded.views
      returning 1)`;
}

/** Inserts a transfer and one view row per stakeholder (and counts them), in one statement. */
export async function insertTransfer(tx: Queryable, transfer: NewTransfer, views: { profileId: string; role: string }[]): Promise<void> {
  const rows = await tx<{ transfer_rows: bigint; view_rows: bigint; counted_rows: bigint }[]>`
    with inserted as (
      insert into transfers (id, workflow_type, sender_id, sender_uid, recipient_id, recipient_uid, sender_personal_id, recipient_personal_id,
        currency, amount, start_at, updated_at, end_at, next_activity, completed, canceled, run_state, activity_count, reason, private,
        message, message_subject, appdata, details)
      values (${transfer.id}, ${transfer.workflowType}, ${transfer.senderId}, ${transfer.senderUid}, ${transfer.recipientId}, ${transfer.recipientUid},
        ${transfer.senderPersonalId}, ${transfer.recipientPersonalId}, ${transfer.money.currency}, ${String(transfer.money.minor)}::bigint, ${transfer.at}, ${transfer.at},
        ${transfer.endAt}, ${transfer.state.nextActivity}, ${transfer.state.completed}, ${transfer.state.canceled}, ${transfer.state.runState},
        ${transfer.activityCount}, null, ${transfer.private}, ${transfer.message}, ${transfer.messageSubject},
        ${tx.json(transfer.appdata)}, ${tx.json(transfer.details as never)})
      returning id),
    viewed as (
      insert into transfer_views (profile_id, transfer_id, role, start_at, sync_ts)
      select profile_id, ${transfer.id}, role, ${transfer.at}, ${transfer.at}
      from unnest(${views.map((view) => view.profileId)}::text[], ${views.map((view) => view.role)}::text[]) as v(profile_id, role)
      returning profile_id),
    ${countViews(tx, tx`viewed`)},
    ${queueWebhooks(tx, { transferId: transfer.id, workflowType: tx`${transfer.workflowType}::text`, state: transfer.state, activityCount: transfer.activityCount, at: transfer.at, profileIds: tx`select unnest(${views.map((view) => view.profileId)}::text[])` })}
    ${transfer.state.completed ? queueReceipt(tx, { transferId: transfer.id, at: transfer.at, recipient: tx`select ${transfer.recipientId}::text` }) : tx``}
    select (select count(*) from inserted) as transfer_rows, (select count(*) from viewed) as view_rows, (select count(*) from counted) as counted_rows`;
  const profiles = new Set(views.map((view) => view.profileId)).size;
  if (rows[0].transfer_rows !== 1n || rows[0].view_rows !== BigInt(views.length) || rows[0].counted_rows !== BigInt(profiles)) {
    throw new Error(`transfer ${transfer.id} insert touched unexpected rows`);
  }
}

/** The states of the wallets (actors of kind wallet) of the profiles; a profile with none is absent. */
export async function selectWalletStates(db: Queryable, profileIds: readonly string[]): Promise<Map<string, string>> {
  if (profileIds.length === 0) return new Map();
  const rows = await db<{ id: string; state: string }[]>`select id, state from actors where kind = 'wallet' and id = any(${[...profileIds]}::text[])`;
  return new Map(rows.map((row) => [row.id, row.state]));
}

export interface TransferChange {
  state: { nextActivity: string; completed: boolean; canceled: boolean; runState: string };
  endAt: Date | null;
  activityCount: number;
  reason: string | null;
  /** A new amount, in the transfer's currency (the update touches no row of another currency, so it throws). */
  money?: Money;
  recipientId?: string | null;
  recipientPersonalId?: string | null;
  details?: Record<string, unknown>;
  addViews?: { profileId: string; role: string }[];
}

/** Writes a transfer's new state, moves every viewer's sync_ts to now and adds (and counts) new viewers, in one statement. */
export async function updateTransfer(tx: Queryable, id: string, change: TransferChange, at: Date): Promise<void> {
  const added = change.addViews ?? [];
  const rows = await tx<{ transfer_rows: bigint; view_rows: bigint; added_rows: bigint; counted_rows: bigint }[]>`
    with changed as (
      update transfers set updated_at = ${at}, end_at = ${change.endAt}, next_activity = ${change.state.nextActivity},
        completed = ${change.state.completed}, canceled = ${change.state.canceled}, run_state = ${change.state.runState},
        activity_count = ${change.activityCount}, reason = ${change.reason},
        amount = coalesce(${change.money === undefined ? null : String(change.money.minor)}::bigint, amount),
        recipient_id = ${change.recipientId === undefined ? tx`recipient_id` : change.recipientId},
        recipient_personal_id = ${change.recipientPersonalId === undefined ? tx`recipient_personal_id` : change.recipientPersonalId},
        details = details || ${tx.json((change.details ?? {}) as never)}
      where id = ${id} ${change.money === undefined ? tx`` : tx`and currency = ${change.money.currency}`}
      returning id),
    synced as (
      update transfer_views set sync_ts = ${at} where transfer_id = ${id} returning 1),
    added as (
      insert into transfer_views (profile_id, transfer_id, role, start_at, sync_ts)
      select v.profile_id, ${id}, v.role, t.start_at, ${at}
      from unnest(${added.map((view) => view.profileId)}::text[], ${added.map((view) => view.role)}::text[]) as v(profile_id, role)
      join transfers t on t.id = ${id}
      on conflict (profile_id, transfer_id) do nothing
      returning profile_id),
    ${countViews(tx, tx`added`)},
    ${queueWebhooks(tx, {
      transferId: id, workflowType: tx`(select workflow_type from transfers where id = ${id})`, state: change.state, activityCount: change.activityCount, at,
      profileIds: tx`select profile_id from transfer_views where transfer_id = ${id} union select unnest(${added.map((view) => view.profileId)}::text[])`,
    })}
    ${change.state.completed ? queueReceipt(tx, { transferId: id, at, recipient: tx`select ${change.recipientId === undefined ? tx`recipient_id` : tx`${change.recipientId}::text`} from transfers where id = ${id} and not completed` }) : tx``}
    select (select count(*) from changed) as transfer_rows, (select count(*) from synced) as view_rows, (select count(*) from added) as added_rows,
      (select count(*) from counted) as counted_rows`;
  if (rows[0].transfer_rows !== 1n) throw new Error(`transfer ${id} update touched ${rows[0].transfer_rows} rows`);
  // One view per profile and transfer: each view added is one profile's count.
  if (rows[0].counted_rows !== rows[0].added_rows) throw new Error(`transfer ${id} added ${rows[0].added_rows} views but counted ${rows[0].counted_rows}`);
}

export async function selectTransfer(sql: Queryable, id: string): Promise<TransferRow | null> {
  const rows = await sql<TransferRow[]>`select ${transferColumns(sql)} from transfers t where t.id = ${id}`;
  return rows[0] ?? null;
}

export async function isViewer(sql: Queryable, transferId: string, profileId: string): Promise<boolean> {
  const rows = await sql`select 1 from transfer_views where transfer_id = ${transferId} and profile_id = ${profileId}`;
  return rows.length > 0;
}

/**
 * Claims (owner, dedup id) for a new transfer with its request's digest. Returns false when a
 * transfer already holds the key within the window; a key older than the window is re-pointed.
 */
export async function claimDedup(tx: Queryable, claim: { ownerId: string; key: string; transferId: string; digest: string; at: Date; windowStart: Date }): Promise<boolean> {
  const rows = await tx`
    insert into transfer_dedup (sender_id, dedup_id, transfer_id, created_at, request_digest)
    values (${claim.ownerId}, ${claim.key}, ${claim.transferId}, ${claim.at}, ${claim.digest})
    on conflict (sender_id, dedup_id) do update set transfer_id = excluded.transfer_id, created_at = excluded.created_at, request_digest = excluded.request_digest
      where transfer_dedup.created_at < ${claim.windowStart}
    returning transfer_id`;
  return rows.length === 1;
}

export interface DedupRow {
  transfer_id: string;
  created_at: Date;
  /** Null for a key claimed before requests were digested (migration 0310). */
  request_digest: string | null;
}

export async function selectDedupRow(sql: Queryable, ownerId: string, dedupId: string): Promise<DedupRow | null> {
  const rows = await sql<DedupRow[]>`
    select transfer_id, created_at, request_digest from transfer_dedup where sender_id = ${ownerId} and dedup_id = ${dedupId}`;
  return rows[0] ?? null;
}

interface HistoryQuery {
  profileId: string;
  orderColumn: 'start' | 'timestamp';
  descending: boolean;
  offset: number;
  limit: number;
  appdata: Record<string, string>;
}

/** One page of a profile's transfers (limit + 1 rows, so the caller knows whether there are more). */
export async function selectHistory(sql: Queryable, query: HistoryQuery): Promise<TransferRow[]> {
  const column = query.orderColumn === 'start' ? sql`v.start_at` : sql`v.sync_ts`;
  const direction = query.descending ? sql`desc` : sql`asc`;
  const filter = Object.keys(query.appdata).length > 0 ? sql`and t.appdata @> ${sql.json(query.appdata)}` : sql``;
  return sql<TransferRow[]>`
    select ${transferColumns(sql)} from transfer_views v join transfers t on t.id = v.transfer_id
    where v.profile_id = ${query.profileId} ${filter}
    order by ${column} ${direction}, v.transfer_id ${direction}
    offset ${query.offset} limit ${query.limit + 1}`;
}

interface SyncRow extends TransferRow {
  sync_ts: Date;
}

/** Keyset page of a profile's changes after (syncTs, transferId). */
export async function selectSync(sql: Queryable, profileId: string, syncTs: Date, transferId: string | null, limit: number): Promise<SyncRow[]> {
  const after = transferId === null ? sql`v.sync_ts > ${syncTs}` : sql`(v.sync_ts, v.transfer_id) > (${syncTs}, ${transferId})`;
  return sql<SyncRow[]>`
    select ${transferColumns(sql)}, v.sync_ts from transfer_views v join transfers t on t.id = v.transfer_id
    where v.profile_id = ${profileId} and ${after}
    order by v.sync_ts, v.transfer_id limit ${limit + 1}`;
}

/**
 * How many of the profile's transfers sync after the view (syncTs, transferId), the end of a page.
 * Exact near either end of the history: its count of views (transfer_view_counts) less those up to
 * the page's end when at most `exactMax` are (a first page); else those after it when at most
 * `exactMax` are (a page near the end). Between the two, the planner's estimate of those after (no
 * row read), within what the bounded counts proved: more than `exactMax` on either side.
 */
export async function countSyncAfter(sql: Queryable, profileId: string, syncTs: Date, transferId: string, exactMax: number): Promise<number> {
  const [row] = await sql<{ views: bigint; through: number }[]>`
    select coalesce((select views from transfer_view_counts where profile_id = ${profileId}), 0) as views,
      (select count(*)::int from (select 1 from transfer_views where profile_id = ${profileId} and (sync_ts, transfer_id) <= (${syncTs}, ${transferId})
        limit ${exactMax + 1}) counted) as through`;
  const views = Number(row.views);
  if (views < row.through) throw new Error(`profile ${profileId} counts ${views} views but has at least ${row.through}`);
  if (row.through <= exactMax) return views - row.through;
  const after = await sql<{ count: number }[]>`
    select count(*)::int as count from (select 1 from transfer_views where profile_id = ${profileId} and (sync_ts, transfer_id) > (${syncTs}, ${transferId})
      limit ${exactMax + 1}) counted`;
  if (after[0].count <= exactMax) return after[0].count;
  const estimate = await estimateSync(sql, profileId, syncTs, transferId);
  return Math.max(exactMax + 1, Math.min(estimate, views - exactMax - 1));
}

/** Profiles whose count of views (transfer_view_counts) differs from their rows of transfer_views: none, or a writer forgot to count. */
export async function selectViewCountMismatches(db: Queryable, mismatchesMax: number): Promise<{ profile_id: string; counted: bigint; views: bigint }[]> {
  return db<{ profile_id: string; counted: bigint; views: bigint }[]>`
    select coalesce(c.profile_id, v.profile_id) as profile_id, coalesce(c.views, 0) as counted, coalesce(v.views, 0) as views
    from transfer_view_counts c
    full join (select profile_id, count(*) as views from transfer_views group by profile_id) v on v.profile_id = c.profile_id
    where coalesce(c.views, 0) <> coalesce(v.views, 0)
    order by 1 limit ${mismatchesMax}`;
}

/** A SQL string literal of digits or an ISO time (EXPLAIN is sent as text; these were validated). */
function plainLiteral(text: string): string {
  if (!/^[0-9A-Za-z:.+-]+$/.test(text)) throw new Error(`not a plain literal: ${text}`);
  return `'${text}'`;
}

async function estimateSync(sql: Queryable, profileId: string, syncTs: Date, transferId: string): Promise<number> {
  const at = `${plainLiteral(syncTs.toISOString())}::timestamptz`;
  const after = `(sync_ts, transfer_id) > (${at}, ${plainLiteral(transferId)})`;
  const [row] = await sql.unsafe<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]>(
    `explain (format json) select 1 from transfer_views where profile_id = ${plainLiteral(profileId)} and ${after}`);
  const plan = row['QUERY PLAN'];
  const planned = (typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan['Plan Rows'];
  return Math.round(Number(planned));
}

export interface PaycodeRow {
  /** The code in clear: filled in for the sender's view only (rows before migration 0501 hold it). */
  code: string;
  code_digest: string | null;
  code_sealed: string | null;
  transfer_id: string;
  sender_id: string;
  recipient_id: string;
  currency: string;
  amount: bigint;
  received: bigint;
  created_at: Date;
  modified_at: Date;
  expires_at: Date;
  used_at: Date | null;
  state: 'active' | 'used' | 'ended';
}

const paycodeColumns = (sql: Queryable) =>
  sql`coalesce(code, '') as code, code_digest, code_sealed, transfer_id, sender_id, recipient_id, currency, amount, received, created_at, modified_at, expires_at, used_at, state`;

/** Inserts a payment code; false when the code is taken by another live code (try another). */
/** Inserts a payment code by its digest (the code never in clear); false when a live code has the digest (try another). */
export async function insertPaycode(tx: Queryable, row: { codeDigest: string; codeSealed: string; transferId: string; senderId: string; recipientId: string; money: Money; expiresAt: Date }, at: Date): Promise<boolean> {
  const rows = await tx`
    insert into paycodes (code, code_digest, code_sealed, transfer_id, sender_id, recipient_id, currency, amount, received, created_at, modified_at, expires_at, used_at, state)
    values (null, ${row.codeDigest}, ${row.codeSealed}, ${row.transferId}, ${row.senderId}, ${row.recipientId}, ${row.money.currency}, ${String(row.money.minor)}::bigint, 0, ${at}, ${at}, ${row.expiresAt}, null, 'active')
    on conflict (code_digest) where state <> 'ended' and code_digest is not null do nothing
    returning transfer_id`;
  return rows.length === 1;
}

/** A live code by its digest (or, for rows older than migration 0501, by the code in clear). */
export async function selectPaycodeByCode(sql: Queryable, digest: string, legacyCode: string): Promise<PaycodeRow | null> {
  const rows = await sql<PaycodeRow[]>`
    select ${paycodeColumns(sql)} from paycodes
    where state <> 'ended' and (code_digest = ${digest} or (code_digest is null and code = ${legacyCode}))`;
  return rows[0] ?? null;
}

export async function selectPaycodeByTransfer(sql: Queryable, transferId: string): Promise<PaycodeRow | null> {
  const rows = await sql<PaycodeRow[]>`select ${paycodeColumns(sql)} from paycodes where transfer_id = ${transferId}`;
  return rows[0] ?? null;
}

export async function updatePaycode(tx: Queryable, transferId: string, change: { state?: 'active' | 'used' | 'ended'; received?: bigint; usedAt?: Date; expiresAt?: Date }, at: Date): Promise<void> {
  const result = await tx`
    update paycodes set modified_at = ${at},
      state = coalesce(${change.state ?? null}, state),
      received = coalesce(${change.received === undefined ? null : String(change.received)}::bigint, received),
      used_at = coalesce(${change.usedAt ?? null}, used_at),
      expires_at = coalesce(${change.expiresAt ?? null}, expires_at)
    where transfer_id = ${transferId}`;
  if (result.count !== 1) throw new Error(`paycode of ${transferId} update touched ${result.count} rows`);
}

interface TransferBundle {
  row: TransferRow;
  stakeholders: { profile_id: string; role: string }[];
  movements: MovementRow[];
  paycode: PaycodeRow | null;
}

/** A transfer with its stakeholders, movements and payment code, in one round trip. */
export async function selectTransferBundle(sql: Queryable, id: string): Promise<TransferBundle | null> {
  const rows = await sql<(TransferRow & { stakeholder_list: { profile_id: string; role: string }[]; movement_list: Record<string, unknown>[]; paycode_row: Record<string, unknown> | null })[]>`
    select ${transferColumns(sql)},
      (select coalesce(json_agg(json_build_object('profile_id', v.profile_id, 'role', v.role) order by v.profile_id, v.role), '[]'::json)
        from transfer_views v where v.transfer_id = t.id) as stakeholder_list,
      (select coalesce(json_agg(json_build_object('transfer_id', m.transfer_id, 'number', m.number, 'line', m.line, 'at', m.at, 'action', m.action,
          'from_id', m.from_id, 'to_id', m.to_id, 'loop_id', m.loop_id, 'currency', m.currency, 'issuer_id', m.issuer_id, 'amount', m.amount::text)
          order by m.number, m.line), '[]'::json)
        from movements m where m.transfer_id = t.id) as movement_list,
      (select json_build_object('code', coalesce(c.code, ''), 'code_digest', c.code_digest, 'code_sealed', c.code_sealed, 'transfer_id', c.transfer_id, 'sender_id', c.sender_id, 'recipient_id', c.recipient_id,
          'currency', c.currency, 'amount', c.amount::text, 'received', c.received::text, 'created_at', c.created_at, 'modified_at', c.modified_at,
          'expires_at', c.expires_at, 'used_at', c.used_at, 'state', c.state)
        from paycodes c where c.transfer_id = t.id) as paycode_row
    from transfers t where t.id = ${id}`;
  const found = rows[0];
  if (!found) return null;
  const { stakeholder_list, movement_list, paycode_row, ...row } = found;
  const date = (value: unknown) => (value === null ? null : new Date(value as string));
  return {
    row: row as TransferRow,
    stakeholders: stakeholder_list,
    movements: movement_list.map((movement) => ({ ...movement, at: date(movement.at), amount: BigInt(movement.amount as string) }) as MovementRow),
    paycode: paycode_row === null ? null : ({
      ...paycode_row, amount: BigInt(paycode_row.amount as string), received: BigInt(paycode_row.received as string), created_at: date(paycode_row.created_at),
      modified_at: date(paycode_row.modified_at), expires_at: date(paycode_row.expires_at), used_at: date(paycode_row.used_at),
    } as PaycodeRow),
  };
}

interface PartyRow {
  id: string;
  title: string;
  username: string | null;
  is_individual: boolean;
}

/** The sender and recipient titles of a page of transfers, in one round trip (profiles are read-only here). */
export async function selectParties(sql: Queryable, ids: readonly string[]): Promise<PartyRow[]> {
  if (ids.length === 0) return [];
  return sql<PartyRow[]>`select id, title, username, is_individual from profiles where id = any(${ids as string[]}::text[])`;
}

/** Whether a live distribution plan of the design exists (a trade's accept names plans per loop). */
export async function planOfDesign(db: Queryable, planId: string, designId: string): Promise<boolean> {
  const rows = await db`select 1 from distribution_plans where id = ${planId} and design_id = ${designId} and deleted_at is null`;
  return rows.length === 1;
}
