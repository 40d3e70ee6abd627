// SQL of the point of sale: pull consent, settlement rows, report rows and the report query.
import type { Money } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import type { NewReceivable, NewSettlement } from './types.ts';

export type { NewReceivable, NewSettlement } from './types.ts';

export async function upsertConsent(db: Queryable, customerId: string, merchantId: string, at: Date): Promise<void> {
  await db`
    insert into pull_consents (customer_id, merchant_id, granted_at, revoked_at) values (${customerId}, ${merchantId}, ${at}, null)
    on conflict (customer_id, merchant_id) do update set granted_at = excluded.granted_at, revoked_at = null`;
}

export async function revokeConsent(db: Queryable, customerId: string, merchantId: string, at: Date): Promise<boolean> {
  const result = await db`
    update pull_consents set revoked_at = ${at} where customer_id = ${customerId} and merchant_id = ${merchantId} and revoked_at is null`;
  return result.count === 1;
}

export async function hasConsent(db: Queryable, customerId: string, merchantId: string): Promise<boolean> {
  const rows = await db`select 1 from pull_consents where customer_id = ${customerId} and merchant_id = ${merchantId} and revoked_at is null`;
  return rows.length === 1;
}

export async function selectConsents(db: Queryable, customerId: string, limit: number): Promise<{ merchant_id: string; granted_at: Date }[]> {
  return db<{ merchant_id: string; granted_at: Date }[]>`
    select merchant_id, granted_at from pull_consents where customer_id = ${customerId} and revoked_at is null order by granted_at, merchant_id limit ${limit}`;
}

export async function insertSettlements(db: Queryable, rows: readonly NewSettlement[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((row) => ({
    id: row.id, redemption_transfer_id: row.redemptionTransferId, design_id: row.designId, plan_id: row.planId, redeemer_id: row.redeemerId,
    recipient_id: row.recipientId, role: row.role, currency: row.currency, amount: String(row.amount), state: row.state, created_at: at, dist_tid: row.distTid,
  }));
  const result = await db`
    insert into settlements ${db(values, 'id', 'redemption_transfer_id', 'design_id', 'plan_id', 'redeemer_id', 'recipient_id', 'role', 'currency', 'amount', 'state', 'created_at', 'dist_tid')}`;
  if (result.count !== rows.length) throw new Error(`settlements insert touched ${result.count} of ${rows.length} rows`);
}

export interface PendingSettlementRow {
  id: string;
  redemption_transfer_id: string;
  redeemer_id: string;
  recipient_id: string;
  role: string;
  currency: string;
  amount: bigint;
  dist_tid: string | null;
}

/** A batch of the design's pending settlements, oldest first, row-locked (others' locked rows skipped). */
export async function selectPendingForUpdate(db: Queryable, designId: string, limit: number): Promise<PendingSettlementRow[]> {
  return db<PendingSettlementRow[]>`
    select id, redemption_transfer_id, redeemer_id, recipient_id, role, currency, amount, dist_tid from settlements
    where design_id = ${designId} and state = 'pending' order by created_at, id limit ${limit} for update skip locked`;
}

export async function markSettled(db: Queryable, ids: readonly string[], settleTransferId: string, at: Date): Promise<void> {
  const result = await db`
    update settlements set state = 'settled', settle_transfer_id = ${settleTransferId}, settled_at = ${at}
    where id = any(${ids as string[]}::text[]) and state = 'pending'`;
  if (result.count !== ids.length) throw new Error(`settled ${result.count} of ${ids.length} settlement rows`);
}

/** Pending settlements per currency: how many (a count, int) and their amount (bigint minor units). */
export async function pendingTotals(db: Queryable, designId: string): Promise<{ currency: string; count: number; amount: bigint }[]> {
  return db<{ currency: string; count: number; amount: bigint }[]>`
    select currency, count(*)::int as count, coalesce(sum(amount), 0)::bigint as amount from settlements
    where design_id = ${designId} and state = 'pending' group by currency order by currency`;
}

export async function insertReceivables(db: Queryable, rows: readonly NewReceivable[], at: Date): Promise<void> {
  if (rows.length === 0) return;
  const values = rows.map((row) => ({
    profile_id: row.profileId, at, transfer_id: row.transferId, pos_device_holder_id: row.posDeviceHolderId, pos_device_id: row.posDeviceId, dist_tid: row.distTid,
    settlement_type: row.settlementType, received_currency: row.receivedCurrency, settle_currency: row.settleCurrency, loop_id: row.loopId, is_fundable: row.isFundable,
    tender_type: row.tenderType, received_amount: String(row.receivedAmount), settle_funded: String(row.settleFunded), settle_reclaimed: String(row.settleReclaimed),
    settle_pending: String(row.settlePending), settle_settled: String(row.settleSettled),
  }));
  const result = await db`
    insert into receivables ${db(values, 'profile_id', 'at', 'transfer_id', 'pos_device_holder_id', 'pos_device_id', 'dist_tid', 'settlement_type', 'received_currency',
      'settle_currency', 'loop_id', 'is_fundable', 'tender_type', 'received_amount', 'settle_funded', 'settle_reclaimed', 'settle_pending', 'settle_settled')}`;
  if (result.count !== rows.length) throw new Error(`receivables insert touched ${result.count} of ${rows.length} rows`);
}

/**
 * Adds `delta` (negative for a refund) of open loop cash a business received at once to its
 * `immediate` report row of the transfer, writing the row on the first receipt.
 */
export async function addImmediateReceivable(
  db: Queryable, row: { profileId: string; transferId: string; currency: string; delta: bigint; posDevice: { holderId: string; deviceId: string } | null }, at: Date,
): Promise<void> {
  const changed = await db`
    update receivables set received_amount = received_amount + ${String(row.delta)}::bigint, settle_settled = settle_settled + ${String(row.delta)}::bigint
    where transfer_id = ${row.transferId} and profile_id = ${row.profileId} and settlement_type = 'immediate' and received_currency = ${row.currency}`;
  if (changed.count > 0 || row.delta <= 0n) return;
  await insertReceivables(db, [{
    profileId: row.profileId, transferId: row.transferId, posDeviceHolderId: row.posDevice?.holderId ?? null, posDeviceId: row.posDevice?.deviceId ?? null, distTid: null,
    settlementType: 'immediate', receivedCurrency: row.currency, settleCurrency: row.currency, loopId: '0', isFundable: false, tenderType: 'service',
    receivedAmount: row.delta, settleFunded: 0n, settleReclaimed: 0n, settlePending: 0n, settleSettled: row.delta,
  }], at);
}

/** Moves `money` from pending to settled on the redeemer's report row of a redemption (a row that settles in its currency). */
export async function settleReceivable(db: Queryable, row: { profileId: string; transferId: string; loopId: string; distTid: string | null; money: Money }): Promise<void> {
  const minor = String(row.money.minor);
  const result = await db`
    update receivables set settle_pending = settle_pending - ${minor}::bigint, settle_settled = settle_settled + ${minor}::bigint
    where id = (select id from receivables where transfer_id = ${row.transferId} and profile_id = ${row.profileId} and loop_id = ${row.loopId}
      and dist_tid is not distinct from ${row.distTid} and settlement_type = 'redeem' and settle_currency = ${row.money.currency} and settle_pending >= ${minor}::bigint order by id limit 1)`;
  if (result.count !== 1) throw new Error(`no report row of ${row.transferId} holds ${row.money.minor} ${row.money.currency} pending for ${row.profileId}`);
}

export interface ReportFilters {
  profileId: string;
  startAt: Date | null;
  endBefore: Date | null;
  posDevice: 'any_or_none' | 'any' | 'none' | { holderId: string; deviceId: string };
  settlementTypes: readonly string[] | null;
}

export interface ReceivableRow {
  id: bigint;
  at: Date;
  transfer_id: string;
  pos_device_holder_id: string | null;
  pos_device_id: string | null;
  dist_tid: string | null;
  settlement_type: string;
  received_currency: string;
  settle_currency: string;
  loop_id: string;
  is_fundable: boolean;
  tender_type: string;
  received_amount: bigint;
  settle_funded: bigint;
  settle_reclaimed: bigint;
  settle_pending: bigint;
  settle_settled: bigint;
}

/** The report query: the filters as one statement, in time order (also run bare by the benchmark). */
export function reportQuery(db: Queryable, filters: ReportFilters) {
  const start = filters.startAt ? db`and at >= ${filters.startAt}` : db``;
  const end = filters.endBefore ? db`and at < ${filters.endBefore}` : db``;
  const device = filters.posDevice === 'any' ? db`and pos_device_id is not null`
    : filters.posDevice === 'none' ? db`and pos_device_id is null`
      : filters.posDevice === 'any_or_none' ? db``
        : db`and pos_device_holder_id = ${filters.posDevice.holderId} and pos_device_id = ${filters.posDevice.deviceId}`;
  const types = filters.settlementTypes ? db`and settlement_type = any(${filters.settlementTypes as string[]}::text[])` : db``;
  return db<ReceivableRow[]>`
    select id, at, transfer_id, pos_device_holder_id, pos_device_id, dist_tid, settlement_type, received_currency, settle_currency, loop_id, is_fundable,
      tender_type, received_amount, settle_funded, settle_reclaimed, settle_pending, settle_settled
    from receivables where profile_id = ${filters.profileId} ${start} ${end} ${device} ${types}
    order by at, id`;
}

export interface SettlementAuditRow {
  kind: string;
  key: string;
  left_amount: bigint;
  right_amount: bigint;
}

/**
 * What the audit compares for settlements: per redemption transfer, funded rows = reserve releases
 * (`settle` movements without a sender); per settle transfer, settled rows = the settler's `settle`
 * movements; per redeemer's report row, funded + pending + settled = its settlement rows.
 */
export async function selectSettlementMismatches(db: Queryable, limit: number): Promise<SettlementAuditRow[]> {
  return db<SettlementAuditRow[]>`
    with funded as (
      select redemption_transfer_id as key, sum(amount)::bigint as amount from settlements where state = 'funded' group by 1),
    released as (
      select m.transfer_id as key, sum(m.amount)::bigint as amount from movements m
      where m.action = 'settle' and m.from_id is null and m.transfer_id in (select redemption_transfer_id from settlements) group by 1),
    settled as (
      select settle_transfer_id as key, sum(amount)::bigint as amount from settlements where state = 'settled' group by 1),
    paid as (
      select m.transfer_id as key, sum(m.amount)::bigint as amount from movements m join transfers t on t.id = m.transfer_id
      where t.workflow_type = 'settle' and m.action = 'settle' group by 1
      union all
      -- A settler owed the settlement itself moves no cash: its settle transfer records the amount.
      select id, amount from transfers where workflow_type = 'settle' and sender_id = recipient_id),
    owed as (
      select redemption_transfer_id || '/' || redeemer_id || '/' || design_id as key, sum(amount)::bigint as amount from settlements
      where role = 'redeemer' group by 1),
    reported as (
      select transfer_id || '/' || profile_id || '/' || loop_id as key, sum(settle_funded + settle_pending + settle_settled)::bigint as amount from receivables
      where settlement_type = 'redeem' and is_fundable group by 1)
    select 'funded' as kind, coalesce(f.key, r.key) as key, coalesce(f.amount, 0)::bigint as left_amount, coalesce(r.amount, 0)::bigint as right_amount
    from funded f full outer join released r on r.key = f.key where coalesce(f.amount, 0) <> coalesce(r.amount, 0)
    union all
    select 'settled', coalesce(s.key, p.key), coalesce(s.amount, 0)::bigint, coalesce(p.amount, 0)::bigint
    from settled s full outer join paid p on p.key = s.key where coalesce(s.amount, 0) <> coalesce(p.amount, 0)
    union all
    select 'reported', coalesce(o.key, r.key), coalesce(o.amount, 0)::bigint, coalesce(r.amount, 0)::bigint
    from owed o full outer join reported r on r.key = o.key where coalesce(o.amount, 0) <> coalesce(r.amount, 0)
    limit ${limit}`;
}

/** A SQL string literal (COPY takes no parameters; every value here was validated before). */
function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** ISO 4217 scales other than 2, as SQL (engine/money.ts holds the table). */
function scaleCase(column: string, exceptions: Readonly<Record<string, number>>): string {
  const whens = Object.entries(exceptions).map(([currency, scale]) => `when ${literal(currency)} then ${scale}`).join(' ');
  return `(case ${column} ${whens} else 2 end)`;
}

/**
 * The report's select, formatted exactly as the JSON rows are (`is_fundable` as the text the CSV
 * writes, or as a boolean for JSON), in time order. COPY takes no parameters: values are literals.
 */
function reportSelectText(filters: ReportFilters, scaleExceptions: Readonly<Record<string, number>>, fundable: 'text' | 'boolean'): string {
  const conditions = [`profile_id = ${literal(filters.profileId)}`];
  if (filters.startAt) conditions.push(`at >= ${literal(filters.startAt.toISOString())}::timestamptz`);
  if (filters.endBefore) conditions.push(`at < ${literal(filters.endBefore.toISOString())}::timestamptz`);
  if (filters.posDevice === 'any') conditions.push('pos_device_id is not null');
  else if (filters.posDevice === 'none') conditions.push('pos_device_id is null');
  else if (filters.posDevice !== 'any_or_none') conditions.push(`pos_device_holder_id = ${literal(filters.posDevice.holderId)} and pos_device_id = ${literal(filters.posDevice.deviceId)}`);
  if (filters.settlementTypes) conditions.push(`settlement_type in (${filters.settlementTypes.map(literal).join(', ')})`);
  const money = (value: string, currency: string) => {
    const scale = scaleCase(currency, scaleExceptions);
    return `round((${value})::numeric / power(10::numeric, ${scale}), ${scale})::text`;
  };
  return `select to_char(at at time zone 'UTC', 'YYYY-MM-DD') as date, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as timestamp,
      transfer_id, pos_device_holder_id, pos_device_id, dist_tid, settlement_type, received_currency, settle_currency, loop_id,
      ${fundable === 'text' ? "case when is_fundable then 'true' else 'false' end" : 'is_fundable'} as is_fundable, tender_type,
      ${money('received_amount', 'received_currency')} as received_amount,
      ${money('case when is_fundable then settle_funded else 0 end', 'settle_currency')} as settle_funded,
      ${money('settle_reclaimed', 'settle_currency')} as settle_reclaimed,
      ${money('settle_pending', 'settle_currency')} as settle_pending,
      ${money('settle_settled', 'settle_currency')} as settle_settled
    from receivables where ${conditions.join(' and ')} order by at, id`;
}

/**
 * The report as CSV produced by Postgres itself (COPY ... TO STDOUT), formatted exactly as the
 * JSON rows are: the API only pipes bytes, so its memory stays flat and its time near the bare query's.
 */
export function reportCopyText(filters: ReportFilters, scaleExceptions: Readonly<Record<string, number>>): string {
  return `copy (${reportSelectText(filters, scaleExceptions, 'text')}) to stdout with (format csv, header true)`;
}

/**
 * The report's rows as JSON objects, one per line, made by Postgres (row_to_json keeps the
 * columns' order). CSV with a delimiter and a quote character that JSON text never holds raw
 * (control characters are escaped in JSON) writes each object unquoted and unescaped.
 */
export function reportJsonCopyText(filters: ReportFilters, scaleExceptions: Readonly<Record<string, number>>): string {
  return `copy (select row_to_json(r)::text from (${reportSelectText(filters, scaleExceptions, 'boolean')}) r) to stdout with (format csv, delimiter e'\\x02', quote e'\\x01')`;
}

/** Whether the report holds more than max rows (reads at most max + 1 index entries). */
export async function reportHasMoreThan(db: Queryable, filters: ReportFilters, max: number): Promise<boolean> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from (${reportQuery(db, filters)} limit ${max + 1}) counted`;
  return row.n > max;
}

/** Streams the report's rows as JSON lines from Postgres (real Postgres only). */
export async function copyReportJson(db: Queryable, filters: ReportFilters, scaleExceptions: Readonly<Record<string, number>>): Promise<AsyncIterable<Buffer>> {
  return (await db.unsafe(reportJsonCopyText(filters, scaleExceptions)).readable()) as AsyncIterable<Buffer>;
}

/** Streams the report's CSV bytes from Postgres (real Postgres only). */
export async function copyReport(db: Queryable, filters: ReportFilters, scaleExceptions: Readonly<Record<string, number>>): Promise<AsyncIterable<Buffer>> {
  return (await db.unsafe(reportCopyText(filters, scaleExceptions)).readable()) as AsyncIterable<Buffer>;
}
