// SQL over balances: the locks every movement takes in one global order (profile, currency, loop),
// a wallet's balances and holdings, and a send's first statement.
import type { Queryable } from '../storage/database.ts';

/** A balance row's key for balanceRowLocks: the profile and the currency (every loop of it). */
export function balanceLockKey(profileId: string, currency: string): string {
  return `${profileId}\u0000${currency}`;
}

/**
 * Row-locks the balances of the keys (all loops of each profile and currency) in one statement,
 * in the order every balance lock uses (profile, currency, loop), so lockers never form a cycle.
 */
export async function lockBalances(tx: Queryable, keys: readonly string[]): Promise<void> {
  const profileIds = keys.map((key) => key.slice(0, key.indexOf('\u0000')));
  const currencies = keys.map((key) => key.slice(key.indexOf('\u0000') + 1));
  // Sent together: they pipeline on the transaction's connection and run in this order.
  await Promise.all([anchorBalances(tx, profileIds, currencies), tx`
    select 1 from balances b
    join unnest(${profileIds}::text[], ${currencies}::text[]) as k(profile_id, currency) using (profile_id, currency)
    order by b.profile_id, b.currency, b.loop_id for update of b`]);
}

/**
 * Makes sure each profile has its open loop row in each currency (amount 0 when it holds none).
 * Every balance lock takes all rows of a profile and currency in order, and the open loop row
 * ('0') sorts first: lockers of one profile queue on it, even before the profile held anything,
 * so rows a locker creates later (a first credit of a loop) are never taken in another order.
 */
export async function anchorBalances(tx: Queryable, profileIds: readonly string[], currencies: readonly string[]): Promise<void> {
  const pairs = profileIds.map((profileId, index) => [profileId, currencies[index]] as const)
    .sort(([leftId, leftCurrency], [rightId, rightCurrency]) => (leftId < rightId ? -1 : leftId > rightId ? 1 : leftCurrency < rightCurrency ? -1 : leftCurrency > rightCurrency ? 1 : 0));
  await tx`
    insert into balances (profile_id, loop_id, currency, amount)
    select k.profile_id, '0', k.currency, 0 from unnest(${pairs.map(([profileId]) => profileId)}::text[], ${pairs.map(([, currency]) => currency)}::text[]) with ordinality as k(profile_id, currency, position)
    order by k.position
    on conflict (profile_id, currency, loop_id) do nothing`;
}

export async function selectBalance(sql: Queryable, profileId: string, loopId: string, currency: string): Promise<bigint> {
  const rows = await sql<{ amount: bigint }[]>`
    select amount from balances where profile_id = ${profileId} and currency = ${currency} and loop_id = ${loopId}`;
  return rows[0]?.amount ?? 0n;
}

/** The balance plus the profile's own notes of the loop in escrow (held by transfers it sent; index notes_in_escrow_by_loop). */
export async function selectHeldForCap(sql: Queryable, profileId: string, loopId: string, currency: string): Promise<bigint> {
  const rows = await sql<{ amount: bigint }[]>`
    select (coalesce((select amount from balances where profile_id = ${profileId} and currency = ${currency} and loop_id = ${loopId}), 0)
      + coalesce((select sum(n.amount) from notes n join transfers t on t.id = n.holder_id
          where n.holder_kind = 'transfer' and n.loop_id = ${loopId} and n.currency = ${currency} and t.sender_id = ${profileId}), 0))::bigint as amount`;
  return rows[0]?.amount ?? 0n;
}

interface HoldingRow {
  loop_id: string;
  currency: string;
  amount: bigint;
  expiring: { amount: string; expire_time: string }[];
  /** Brand cash: the design's title and the media id of its image (for the LoopDescription). */
  title: string | null;
  image_media_id: string | null;
}

/** A wallet's holdings with their expiring cash, in one round trip (open loop cash never expires). */
export async function selectHoldings(sql: Queryable, profileId: string): Promise<HoldingRow[]> {
  return sql<HoldingRow[]>`
    select b.loop_id, b.currency, b.amount,
      case when b.loop_id = '0' then '[]'::json else coalesce((
        select json_agg(json_build_object('amount', e.amount::text, 'expire_time', e.expires_at) order by e.expires_at)
        from (select n.expires_at, sum(n.amount) as amount from notes n
          where n.holder_kind = 'wallet' and n.holder_id = b.profile_id and n.loop_id = b.loop_id and n.currency = b.currency and n.expires_at is not null
          group by n.expires_at) e), '[]'::json) end as expiring,
      d.title, (select m.media_id from design_media m where m.design_id = d.id and m.kind = 'image' and m.denomination_minor is null) as image_media_id
    from balances b left join designs d on d.id = b.loop_id
    where b.profile_id = ${profileId} and b.amount > 0 order by b.currency, b.loop_id`;
}

/**
 * A send's first statement: a number from the long id sequence for the transfer id, the recipient
 * wallet's state (not locked: credits are atomic upserts) and the balances about to change,
 * row-locked in a stable order so two opposite sends queue rather than deadlock.
 */
export async function beginSend(tx: Queryable, input: { lockProfileIds: readonly string[]; currency: string; recipientId: string | null }): Promise<{ sequence: bigint; recipientWalletState: string | null }> {
  const rows = await tx<{ sequence: bigint; recipient_wallet_state: string | null; locked_rows: bigint }[]>`
    with locked as (
      select 1 from balances where profile_id = any(${[...input.lockProfileIds].sort()}::text[]) and currency = ${input.currency}
      order by profile_id, currency, loop_id for update)
    select nextval('ids_long') as sequence,
      (select state from actors where kind = 'wallet' and id = ${input.recipientId}) as recipient_wallet_state,
      (select count(*) from locked) as locked_rows`;
  return { sequence: BigInt(rows[0].sequence), recipientWalletState: rows[0].recipient_wallet_state };
}
