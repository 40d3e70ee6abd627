// SQL for ACH funding proxies and their deposits.
import type { Queryable } from '../storage/database.ts';

export interface FundProxyRow {
  id: string;
  app_id: string;
  routing_number: string;
  account_number: string;
  issuer_id: string;
  distributor_id: string | null;
  recipient_id: string;
  appdata: Record<string, string>;
  created_at: Date;
}

const columns = 'id, app_id, routing_number, account_number, issuer_id, distributor_id, recipient_id, appdata, created_at';

/** Inserts a proxy unless the same request made one already; answers the proxy either way. */
export async function insertOrSelectProxy(db: Queryable, row: FundProxyRow): Promise<FundProxyRow> {
  const inserted = await db<FundProxyRow[]>`
    insert into fund_proxies (id, app_id, routing_number, account_number, issuer_id, distributor_id, recipient_id, appdata, created_at)
    values (${row.id}, ${row.app_id}, ${row.routing_number}, ${row.account_number}, ${row.issuer_id}, ${row.distributor_id}, ${row.recipient_id},
      ${db.json(row.appdata)}, ${row.created_at})
    on conflict do nothing returning ${db.unsafe(columns)}`;
  if (inserted[0]) return inserted[0];
  const existing = await db<FundProxyRow[]>`
    select ${db.unsafe(columns)} from fund_proxies
    where app_id = ${row.app_id} and routing_number = ${row.routing_number} and issuer_id = ${row.issuer_id}
      and coalesce(distributor_id, '') = ${row.distributor_id ?? ''} and recipient_id = ${row.recipient_id} and appdata = ${db.json(row.appdata)}`;
  if (!existing[0]) throw new Error('fund proxy insert conflicted on its account number; try again');
  return existing[0];
}

export async function selectProxyByAccount(db: Queryable, accountNumber: string): Promise<FundProxyRow | null> {
  const rows = await db<FundProxyRow[]>`select ${db.unsafe(columns)} from fund_proxies where account_number = ${accountNumber}`;
  return rows[0] ?? null;
}

/** The deposit a trace number names: its transfer, and the digest of its request (null when claimed before migration 1050). */
export async function selectDeposit(db: Queryable, proxyId: string, traceNumber: string): Promise<{ transfer_id: string; request_digest: string | null } | null> {
  const rows = await db<{ transfer_id: string; request_digest: string | null }[]>`
    select transfer_id, request_digest from fund_proxy_deposits where proxy_id = ${proxyId} and trace_number = ${traceNumber}`;
  return rows[0] ?? null;
}

/** Claims a trace number for a transfer with its request's digest; false when another deposit holds it. */
export async function insertDeposit(db: Queryable, claim: { proxyId: string; traceNumber: string; transferId: string; digest: string }): Promise<boolean> {
  const rows = await db`
    insert into fund_proxy_deposits (proxy_id, trace_number, transfer_id, request_digest) values (${claim.proxyId}, ${claim.traceNumber}, ${claim.transferId}, ${claim.digest})
    on conflict do nothing returning 1`;
  return rows.length === 1;
}
