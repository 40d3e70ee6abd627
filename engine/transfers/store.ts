// SQL for transfers, their per-profile views (history and sync), dedup keys and payment codes.
import type { MovementRow } from '../ledger/types.ts';
import type { Money } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import type { NewTransfer, TransferRow } from './types.ts';

export type { NewTransfer, TransferRow } from './types.ts';

/** A piece of SQL built with a Queryable's tag, to be placed in another statement. */
type Fragment = ReturnType<Queryable>;
const fragment = (piece: unknown) => piece as Fragment;

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
 * The views a transfer's own columns carry (migration 1060): its sender's in the role 'sender' and its
 * recipient's in the role 'recipient'. Every other view (a third party's) is a row of transfer_views.
 */
function partyViews(transfer: { senderId: string | null; recipientId: string | null }, views: readonly { profileId: string; role: string }[]) {
  if (new Set(views.map((view) => view.profileId)).size !== views.length) throw new Error('a profile sees a transfer once');
  const senderSees = views.some((view) => view.role === 'sender' && view.profileId === transfer.senderId);
  const recipientSees = views.some((view) => view.role === 'recipient' && view.profileId === transfer.recipientId);
  const others = views.filter((view) => !(view.role === 'sender' && view.profileId === transfer.senderId) && !(view.role === 'recipient' && view.profileId === transfer.recipientId));
  return { senderSees, recipientSees, others };
}

/**
 * Inserts a transfer, its sender's and recipient's views as its columns and a row of transfer_views
 * per third party, in one statement (a P2P send writes no view row).
 */
export async function insertTransfer(tx: Queryable, transfer: NewTransfer, views: { profileId: string; role: string }[]): Promise<void> {
  const { senderSees, recipientSees, others } = partyViews(transfer, views);
  const rows = await tx<{ transfer_rows: bigint; view_rows: bigint }[]>`
    with inserted as (
      insert into transfers (id, workflow_type, sender_id, sender_uid, recipient_id, recipient_uid, sender_personal_id, recipient_personal_id,
        currency, amount, start_at, updated_at, end_at, next_activity, completed, canceled, run_state, activity_count, reason, private,
        message, message_subject, appdata, details, sender_sees, recipient_sees)
      values (${transfer.id}, ${transfer.workflowType}, ${transfer.senderId}, ${transfer.senderUid}, ${transfer.recipientId}, ${transfer.recipientUid},
        ${transfer.senderPersonalId}, ${transfer.recipientPersonalId}, ${transfer.money.currency}, ${String(transfer.money.minor)}::bigint, ${transfer.at}, ${transfer.at},
        ${transfer.endAt}, ${transfer.state.nextActivity}, ${transfer.state.completed}, ${transfer.state.canceled}, ${transfer.state.runState},
        ${transfer.activityCount}, null, ${transfer.private}, ${transfer.message}, ${transfer.messageSubject},
        ${tx.json(transfer.appdata)}, ${tx.json(transfer.details as never)}, ${senderSees}, ${recipientSees})
      returning id)${others.length === 0 ? tx`` : tx`,
    viewed as (
      insert into transfer_views (profile_id, transfer_id, role, start_at, sync_ts)
      select profile_id, ${transfer.id}, role, ${transfer.at}, ${transfer.at}
      from unnest(${others.map((view) => view.profileId)}::text[], ${others.map((view) => view.role)}::text[]) as v(profile_id, role)
      returning 1)`},
    ${queueWebhooks(tx, { transferId: transfer.id, workflowType: tx`${transfer.workflowType}::text`, state: transfer.state, activityCount: transfer.activityCount, at: transfer.at, profileIds: tx`select unnest(${views.map((view) => view.profileId)}::text[])` })}
    ${transfer.state.completed ? queueReceipt(tx, { transferId: transfer.id, at: transfer.at, recipient: tx`select ${transfer.recipientId}::text` }) : tx``}
    select (select count(*) from inserted) as transfer_rows, ${others.length === 0 ? tx`0::bigint` : tx`(select count(*) from viewed)`} as view_rows`;
  if (rows[0].transfer_rows !== 1n || rows[0].view_rows !== BigInt(others.length)) throw new Error(`transfer ${transfer.id} insert touched unexpected rows`);
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

/**
 * Writes a transfer's new state (its updated_at is its sender's and recipient's sync_ts), moves every
 * third party's sync_ts to now and adds new viewers, in one statement. A viewer added as the
 * transfer's (new) recipient becomes its `recipient_sees`; any other, a row of transfer_views; one
 * who already sees the transfer, nothing. A recipient who sees the transfer is never replaced.
 */
export async function updateTransfer(tx: Queryable, id: string, change: TransferChange, at: Date): Promise<void> {
  const added = change.addViews ?? [];
  const recipient = (row: ReturnType<Queryable>) => (change.recipientId === undefined ? tx`${row}.recipient_id` : tx`${change.recipientId}::text`);
  const addedIds = added.map((view) => view.profileId);
  const addedRoles = added.map((view) => view.role);
  const rows = await tx<{ transfer_rows: bigint }[]>`
    with changed as (
      update transfers t set updated_at = ${at}, end_at = ${change.endAt}, next_activity = ${change.state.nextActivity},
        completed = ${change.state.completed}, canceled = ${change.state.canceled}, run_state = ${change.state.runState},
        activity_count = ${change.activityCount}, reason = ${change.reason},
        amount = coalesce(${change.money === undefined ? null : String(change.money.minor)}::bigint, amount),
        recipient_id = ${recipient(tx`t`)},
        recipient_personal_id = ${change.recipientPersonalId === undefined ? tx`recipient_personal_id` : change.recipientPersonalId},
        details = details || ${tx.json((change.details ?? {}) as never)},
        recipient_sees = t.recipient_sees or exists (
          select 1 from unnest(${addedIds}::text[], ${addedRoles}::text[]) as a(profile_id, role)
          where a.role = 'recipient' and a.profile_id = ${recipient(tx`t`)} and not (t.sender_sees and t.sender_id = a.profile_id)
            and not exists (select 1 from transfer_views v where v.transfer_id = ${id} and v.profile_id = a.profile_id))
      where t.id = ${id} ${change.money === undefined ? tx`` : tx`and t.currency = ${change.money.currency}`} and not (t.recipient_sees and t.recipient_id is distinct from ${recipient(tx`t`)})
      returning t.id),
    synced as (
      update transfer_views set sync_ts = ${at} where transfer_id = ${id} returning 1),
    added as (
      insert into transfer_views (profile_id, transfer_id, role, start_at, sync_ts)
      select a.profile_id, ${id}, a.role, t.start_at, ${at}
      from unnest(${addedIds}::text[], ${addedRoles}::text[]) as a(profile_id, role)
      join transfers t on t.id = ${id}
      where not (t.sender_sees and t.sender_id = a.profile_id) and not (t.recipient_sees and t.recipient_id = a.profile_id)
        and not (a.role = 'recipient' and a.profile_id = ${recipient(tx`t`)})
      on conflict (profile_id, transfer_id) do nothing
      returning 1),
    ${queueWebhooks(tx, {
      transferId: id, workflowType: tx`(select workflow_type from transfers where id = ${id})`, state: change.state, activityCount: change.activityCount, at,
      profileIds: tx`select profile_id from transfer_views where transfer_id = ${id}
        union select sender_id from transfers where id = ${id} and sender_sees union select recipient_id from transfers where id = ${id} and recipient_sees
        union select unnest(${addedIds}::text[])`,
    })}
    ${change.state.completed ? queueReceipt(tx, { transferId: id, at, recipient: tx`select ${change.recipientId === undefined ? tx`recipient_id` : tx`${change.recipientId}::text`} from transfers where id = ${id} and not completed` }) : tx``}
    select (select count(*) from changed) as transfer_rows, (select count(*) from synced) as view_rows, (select count(*) from added) as added_rows`;
  // None: a missing transfer, or a change that would take the transfer from the recipient who sees it.
  if (rows[0].transfer_rows !== 1n) throw new Error(`transfer ${id} update touched ${rows[0].transfer_rows} rows`);
}

export async function selectTransfer(sql: Queryable, id: string): Promise<TransferRow | null> {
  const rows = await sql<TransferRow[]>`select ${transferColumns(sql)} from transfers t where t.id = ${id}`;
  return rows[0] ?? null;
}

/** A transfer's viewers as (profile, role) rows: its sender's and recipient's views (its columns) and every third party's. */
function viewersOf(sql: Queryable, transferId: ReturnType<Queryable>) {
  return sql`select sender_id as profile_id, 'sender' as role from transfers where id = ${transferId} and sender_sees
    union all select recipient_id, 'recipient' from transfers where id = ${transferId} and recipient_sees
    union all select profile_id, role from transfer_views where transfer_id = ${transferId}`;
}

export async function selectViewRoles(sql: Queryable, transferId: string): Promise<{ profile_id: string; role: string }[]> {
  return sql`select profile_id, role from (${viewersOf(sql, sql`${transferId}`)}) v order by profile_id, role`;
}

export async function isViewer(sql: Queryable, transferId: string, profileId: string): Promise<boolean> {
  const rows = await sql`
    select 1 from transfers where id = ${transferId} and ((sender_sees and sender_id = ${profileId}) or (recipient_sees and recipient_id = ${profileId}))
    union all select 1 from transfer_views where transfer_id = ${transferId} and profile_id = ${profileId}`;
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

/**
 * A profile's views in one order, merged from three index scans: the transfers it sent
 * (transfers_sender_*), those it received (transfers_recipient_*) and its third-party views
 * (transfer_views). Each branch reads at most `rows` in the order, so the merge reads at most 3 x rows.
 * `key` is a view's start or sync_ts (a party's sync_ts is the transfer's updated_at, migration 1060).
 */
function viewsInOrder(sql: Queryable, page: {
  profileId: string; orderColumn: 'start' | 'timestamp'; descending: boolean; rows: number; columns: ReturnType<Queryable>;
  where: (key: Fragment, id: Fragment) => Fragment;
}) {
  const direction = page.descending ? sql`desc` : sql`asc`;
  const partyKey = fragment(page.orderColumn === 'start' ? sql`t.start_at` : sql`t.updated_at`);
  const viewKey = fragment(page.orderColumn === 'start' ? sql`v.start_at` : sql`v.sync_ts`);
  const party = (column: ReturnType<Queryable>, sees: ReturnType<Queryable>) => sql`(
    select ${page.columns}, ${partyKey} as order_key from transfers t
    where ${column} = ${page.profileId} and ${sees} and ${page.where(partyKey, fragment(sql`t.id`))}
    order by ${partyKey} ${direction}, t.id ${direction} limit ${page.rows})`;
  return sql`select * from (${party(sql`t.sender_id`, sql`t.sender_sees`)}
    union all ${party(sql`t.recipient_id`, sql`t.recipient_sees`)}
    union all (
      select ${page.columns}, ${viewKey} as order_key from transfer_views v join transfers t on t.id = v.transfer_id
      where v.profile_id = ${page.profileId} and ${page.where(viewKey, fragment(sql`v.transfer_id`))}
      order by ${viewKey} ${direction}, v.transfer_id ${direction} limit ${page.rows})) merged
    order by order_key ${direction}, id ${direction}`;
}

/** One page of a profile's transfers (limit + 1 rows, so the caller knows whether there are more). */
export async function selectHistory(sql: Queryable, query: HistoryQuery): Promise<TransferRow[]> {
  const filter = Object.keys(query.appdata).length > 0 ? sql`t.appdata @> ${sql.json(query.appdata)}` : sql`true`;
  const rows = await sql<(TransferRow & { order_key?: Date })[]>`
    ${viewsInOrder(sql, { ...query, rows: query.offset + query.limit + 1, columns: fragment(transferColumns(sql)), where: () => fragment(filter) })}
    offset ${query.offset} limit ${query.limit + 1}`;
  for (const row of rows) delete row.order_key;
  return rows;
}

interface SyncRow extends TransferRow {
  sync_ts: Date;
}

/** The views after (syncTs, transferId) in sync order, or after syncTs when no transfer is named. */
const syncedAfter = (sql: Queryable, syncTs: Date, transferId: string | null) => (key: Fragment, id: Fragment): Fragment =>
  transferId === null ? sql`${key} > ${syncTs}` : sql`(${key}, ${id}) > (${syncTs}, ${transferId})`;

/** Keyset page of a profile's changes after (syncTs, transferId). */
export async function selectSync(sql: Queryable, profileId: string, syncTs: Date, transferId: string | null, limit: number): Promise<SyncRow[]> {
  const rows = await sql<(SyncRow & { order_key?: Date })[]>`
    ${viewsInOrder(sql, { profileId, orderColumn: 'timestamp', descending: false, rows: limit + 1, columns: fragment(transferColumns(sql)), where: syncedAfter(sql, syncTs, transferId) })}
    limit ${limit + 1}`;
  for (const row of rows) {
    row.sync_ts = row.order_key!;
    delete row.order_key;
  }
  return rows;
}

/**
 * How many of the profile's transfers sync after the view (syncTs, transferId), the end of a page:
 * its three index scans (sent, received, third party) counted together, stopped at `exactMax + 1`
 * entries (no kept count, no row read): exact when at most `exactMax` remain; else the planner's
 * estimate of those after (EXPLAIN), never within the bound.
 */
export async function countSyncAfter(sql: Queryable, profileId: string, syncTs: Date, transferId: string, exactMax: number): Promise<number> {
  const after = syncedAfter(sql, syncTs, transferId);
  const party = (column: Fragment, sees: Fragment) => sql`(
    select 1 from transfers t where ${column} = ${profileId} and ${sees} and ${after(fragment(sql`t.updated_at`), fragment(sql`t.id`))} limit ${exactMax + 1})`;
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from (${party(fragment(sql`t.sender_id`), fragment(sql`t.sender_sees`))}
      union all ${party(fragment(sql`t.recipient_id`), fragment(sql`t.recipient_sees`))}
      union all (select 1 from transfer_views v where v.profile_id = ${profileId} and ${after(fragment(sql`v.sync_ts`), fragment(sql`v.transfer_id`))}
        limit ${exactMax + 1})
      limit ${exactMax + 1}) counted`;
  if (row.count <= exactMax) return row.count;
  return Math.max(exactMax + 1, await estimateSync(sql, profileId, syncTs, transferId));
}

/** Views that say a profile sees a transfer twice (a party's column and a row): none, or a writer missed one. */
export async function selectViewProblems(db: Queryable, problemsMax: number): Promise<{ profile_id: string; transfer_id: string }[]> {
  return db<{ profile_id: string; transfer_id: string }[]>`
    select v.profile_id, v.transfer_id from transfer_views v join transfers t on t.id = v.transfer_id
    where (t.sender_sees and t.sender_id = v.profile_id) or (t.recipient_sees and t.recipient_id = v.profile_id)
    order by 1, 2 limit ${problemsMax}`;
}

/** A SQL string literal of digits or an ISO time (EXPLAIN is sent as text; these were validated). */
function plainLiteral(text: string): string {
  if (!/^[0-9A-Za-z:.+-]+$/.test(text)) throw new Error(`not a plain literal: ${text}`);
  return `'${text}'`;
}

/** The planner's estimate of the views after (syncTs, transferId), its three scans summed (EXPLAIN reads no row). */
async function estimateSync(sql: Queryable, profileId: string, syncTs: Date, transferId: string): Promise<number> {
  const at = `${plainLiteral(syncTs.toISOString())}::timestamptz`;
  const after = (key: string, id: string) => `(${key}, ${id}) > (${at}, ${plainLiteral(transferId)})`;
  const profile = plainLiteral(profileId);
  const [row] = await sql.unsafe<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]>(
    `explain (format json) select 1 from transfers where sender_id = ${profile} and sender_sees and ${after('updated_at', 'id')}
      union all select 1 from transfers where recipient_id = ${profile} and recipient_sees and ${after('updated_at', 'id')}
      union all select 1 from transfer_views where profile_id = ${profile} and ${after('sync_ts', 'transfer_id')}`);
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
        from (${viewersOf(sql, sql`t.id`)}) v) as stakeholder_list,
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
