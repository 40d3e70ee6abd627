// SQL for bank (DFI) accounts and exchange rates.
import type { Queryable } from '../storage/database.ts';

export interface DfiAccountRow {
  id: string;
  profile_id: string;
  registered: boolean;
  rdfi_name: string;
  routing_number: string;
  account_number: string;
  ach_type: 'checking' | 'savings';
  currency: string;
  alias: string;
  holder_name: string;
  created_at: Date;
}

export interface NewDfiAccount {
  id: string;
  profileId: string;
  registered: boolean;
  rdfiName: string;
  routingNumber: string;
  accountNumber: string;
  achType: 'checking' | 'savings';
  currency: string;
  alias: string;
  holderName: string;
}

export async function insertAccount(tx: Queryable, account: NewDfiAccount, at: Date): Promise<void> {
  const result = await tx`
    insert into dfi_accounts (id, profile_id, registered, rdfi_name, routing_number, account_number, ach_type, currency, alias, holder_name, created_at)
    values (${account.id}, ${account.profileId}, ${account.registered}, ${account.rdfiName}, ${account.routingNumber}, ${account.accountNumber},
      ${account.achType}, ${account.currency}, ${account.alias}, ${account.holderName}, ${at})`;
  if (result.count !== 1) throw new Error(`dfi account insert touched ${result.count} rows`);
}

const accountColumns = (sql: Queryable) =>
  sql`id, profile_id, registered, rdfi_name, routing_number, account_number, ach_type, currency, alias, holder_name, created_at`;

export async function selectAccount(sql: Queryable, id: string): Promise<DfiAccountRow | null> {
  const rows = await sql<DfiAccountRow[]>`select ${accountColumns(sql)} from dfi_accounts where id = ${id}`;
  return rows[0] ?? null;
}

export async function selectRegisteredAccounts(sql: Queryable, profileId: string, limit: number): Promise<DfiAccountRow[]> {
  return sql<DfiAccountRow[]>`
    select ${accountColumns(sql)} from dfi_accounts where profile_id = ${profileId} and registered order by created_at, id limit ${limit}`;
}

export async function upsertRate(sql: Queryable, source: string, dest: string, rate: string, at: Date): Promise<void> {
  await sql`
    insert into fx_rates (source_currency, dest_currency, rate, updated_at) values (${source}, ${dest}, ${rate}, ${at})
    on conflict (source_currency, dest_currency) do update set rate = excluded.rate, updated_at = excluded.updated_at`;
}

export async function selectRate(sql: Queryable, source: string, dest: string): Promise<string | null> {
  const rows = await sql<{ rate: string }[]>`select rate from fx_rates where source_currency = ${source} and dest_currency = ${dest}`;
  return rows[0]?.rate ?? null;
}

export async function selectRates(sql: Queryable, limit: number): Promise<{ source_currency: string; dest_currency: string; rate: string; updated_at: Date }[]> {
  return sql`select source_currency, dest_currency, rate, updated_at from fx_rates order by source_currency, dest_currency limit ${limit}`;
}
