// SQL over the ledger's totals and settings, and the audit's reads: cash issued, redeemed and
// expired per loop and currency, the reserves, and the invariants the audit checks.
import type { Queryable } from '../storage/database.ts';

/** Adds redeemed cash (a bank deposit) to the totals. */
export async function addRedeemed(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  const result = await tx`
    update ledger_totals set redeemed = redeemed + ${String(amount)}::bigint where loop_id = ${loopId} and currency = ${currency}`;
  if (result.count !== 1) throw new Error(`redeemed total for ${loopId}/${currency} touched ${result.count} rows`);
}

/** Adds expired brand cash to the totals. */
export async function addExpired(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  const result = await tx`
    update ledger_totals set expired = expired + ${String(amount)}::bigint where loop_id = ${loopId} and currency = ${currency}`;
  if (result.count !== 1) throw new Error(`expired total for ${loopId}/${currency} touched ${result.count} rows`);
}

export async function selectSetting(sql: Queryable, name: string): Promise<string | null> {
  const rows = await sql<{ value: string }[]>`select value from ledger_settings where name = ${name}`;
  return rows[0]?.value ?? null;
}

export async function upsertSetting(sql: Queryable, name: string, value: string): Promise<void> {
  await sql`insert into ledger_settings (name, value) values (${name}, ${value}) on conflict (name) do update set value = excluded.value`;
}

export interface AuditRow {
  loop_id: string;
  currency: string;
  issued: bigint;
  redeemed: bigint;
  held: bigint;
  in_flight: bigint;
  reserved: bigint;
  expired: bigint;
  notes_live: bigint;
  notes_expired: bigint;
  expired_movements: bigint;
  notes_redeemed: bigint;
  issued_movements: bigint;
  redeemed_movements: bigint;
}

/** Every total the audit compares, per loop and currency. */
export async function selectAuditTotals(sql: Queryable): Promise<AuditRow[]> {
  return sql<AuditRow[]>`
    with keys as (
      select loop_id, currency from ledger_totals
      union select loop_id, currency from balances
      union select loop_id, currency from notes)
    select k.loop_id, k.currency,
      coalesce((select issued from ledger_totals t where t.loop_id = k.loop_id and t.currency = k.currency), 0)::bigint as issued,
      coalesce((select redeemed from ledger_totals t where t.loop_id = k.loop_id and t.currency = k.currency), 0)::bigint as redeemed,
      coalesce((select sum(amount) from balances b where b.loop_id = k.loop_id and b.currency = k.currency), 0)::bigint as held,
      coalesce((select sum(amount) from notes n where n.loop_id = k.loop_id and n.currency = k.currency and n.holder_kind = 'transfer'), 0)::bigint as in_flight,
      coalesce((select sum(amount) from notes n where n.loop_id = k.loop_id and n.currency = k.currency and n.holder_kind = 'reserve'), 0)::bigint as reserved,
      coalesce((select expired from ledger_totals t where t.loop_id = k.loop_id and t.currency = k.currency), 0)::bigint as expired,
      coalesce((select sum(amount) from notes n where n.loop_id = k.loop_id and n.currency = k.currency and n.holder_kind in ('wallet', 'transfer', 'reserve')), 0)::bigint as notes_live,
      coalesce((select sum(amount) from notes n where n.loop_id = k.loop_id and n.currency = k.currency and n.holder_kind = 'expired'), 0)::bigint as notes_expired,
      coalesce((select sum(amount) from movements m where m.loop_id = k.loop_id and m.currency = k.currency and m.action = 'expire'), 0)::bigint as expired_movements,
      coalesce((select sum(amount) from notes n where n.loop_id = k.loop_id and n.currency = k.currency and n.holder_kind = 'redeemed'), 0)::bigint as notes_redeemed,
      coalesce((select sum(amount) from movements m where m.loop_id = k.loop_id and m.currency = k.currency and m.action = 'issue' and m.from_id is null), 0)::bigint as issued_movements,
      coalesce((select sum(amount) from movements m where m.loop_id = k.loop_id and m.currency = k.currency and m.action in ('deposit', 'redeem')), 0)::bigint as redeemed_movements
    from keys k order by k.currency, k.loop_id`;
}

interface ReserveRow {
  design_id: string;
  currency: string;
  reserve: bigint;
  needed: bigint;
}

/** Per design: the open loop cash its reserve holds, and what its outstanding brand cash needs. */
export async function selectReserves(sql: Queryable): Promise<ReserveRow[]> {
  return sql<ReserveRow[]>`
    with held as (
      select holder_id as design_id, currency, sum(amount)::bigint as reserve from notes where holder_kind = 'reserve' group by holder_id, currency),
    needed as (
      select loop_id as design_id, currency, sum(reserve)::bigint as needed from notes
      where holder_kind in ('wallet', 'transfer') and loop_id <> '0' group by loop_id, currency)
    select coalesce(h.design_id, n.design_id) as design_id, coalesce(h.currency, n.currency) as currency,
      coalesce(h.reserve, 0)::bigint as reserve, coalesce(n.needed, 0)::bigint as needed
    from held h full outer join needed n on n.design_id = h.design_id and n.currency = h.currency
    order by 1, 2`;
}

/** Wallets whose balance row differs from the sum of their notes. */
export async function selectBalanceMismatches(sql: Queryable, limit: number): Promise<{ profile_id: string; loop_id: string; currency: string; balance: bigint; notes: bigint }[]> {
  return sql`
    with note_sums as (
      select holder_id as profile_id, loop_id, currency, sum(amount)::bigint as notes from notes
      where holder_kind = 'wallet' group by holder_id, loop_id, currency)
    select coalesce(b.profile_id, n.profile_id) as profile_id, coalesce(b.loop_id, n.loop_id) as loop_id,
      coalesce(b.currency, n.currency) as currency, coalesce(b.amount, 0)::bigint as balance, coalesce(n.notes, 0)::bigint as notes
    from balances b full outer join note_sums n
      on n.profile_id = b.profile_id and n.loop_id = b.loop_id and n.currency = b.currency
    where coalesce(b.amount, 0) <> coalesce(n.notes, 0)
    limit ${limit}`;
}

export async function countNegativeBalances(sql: Queryable): Promise<number> {
  const rows = await sql<{ count: bigint }[]>`select count(*) as count from balances where amount < 0`;
  return Number(rows[0].count);
}

/** Notes held in escrow by transfers that are no longer pending. */
export async function countOrphanHeldNotes(sql: Queryable): Promise<number> {
  const rows = await sql<{ count: bigint }[]>`
    select count(*) as count from notes n join transfers t on t.id = n.holder_id
    where n.holder_kind = 'transfer' and (t.completed or t.canceled)`;
  return Number(rows[0].count);
}
