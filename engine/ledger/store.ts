// SQL for notes, balances, ledger totals, movements and the audit. Every write that moves cash
// is one statement that moves the notes and adjusts the balances together.
import type { Money } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import { openLoopId, type Note, type Pick } from './allocation.ts';
import type { Holder, LoopSummaryRow, MovementLine, MovementRow } from './types.ts';

export type { Holder, HolderKind, LoopSummaryRow, MovementLine, MovementRow } from './types.ts';

interface NoteRow {
  serial: bigint;
  loop_id: string;
  currency: string;
  issuer_id: string;
  amount: bigint;
  expires_at: Date | null;
}

function toNote(row: NoteRow): Note {
  return { serial: row.serial, loopId: row.loop_id, currency: row.currency, issuerId: row.issuer_id, amount: row.amount, expiresAt: row.expires_at };
}

/**
 * The holder's notes in one currency (optionally only the given serials), row-locked, in the order
 * cash is spent for a recipient: their own brand cash, other brand cash, open loop; soonest expiry first.
 */
export async function selectNotesForUpdate(tx: Queryable, holder: Holder, currency: string | null, serials: bigint[] | null, limit: number, recipientId: string | null = null): Promise<Note[]> {
  const byCurrency = currency === null ? tx`` : tx`and currency = ${currency}`;
  const bySerial = serials === null ? tx`` : tx`and serial = any(${serials.map(String)}::bigint[])`;
  const rows = await tx<NoteRow[]>`
    select serial, loop_id, currency, issuer_id, amount, expires_at from notes
    where holder_kind = ${holder.kind} and holder_id = ${holder.id} ${byCurrency} ${bySerial}
    order by case when loop_id <> '0' and issuer_id = ${recipientId ?? ''} then 0 when loop_id <> '0' then 1 else 2 end,
      expires_at nulls last, serial
    limit ${limit} for update`;
  return rows.map(toNote);
}

/**
 * Just the notes that pay `needed` of one entry, row-locked: a running total in spending order
 * stops at the first note that covers it, so a wallet of many notes locks only what it spends.
 * `loopId` null means any loop; `acceptedOnly` keeps open loop cash and the recipient's own brand cash.
 */
export async function selectNotesCovering(
  tx: Queryable,
  holder: Holder,
  entry: { loopId: string | null; currency: string; needed: bigint; liveAt: Date },
  recipientId: string | null,
  acceptedOnly: boolean,
): Promise<Note[]> {
  const byLoop = entry.loopId === null ? tx`` : tx`and loop_id = ${entry.loopId}`;
  const live = tx`and (expires_at is null or expires_at > ${entry.liveAt})`;
  const accepted = acceptedOnly ? tx`and (loop_id = '0' or issuer_id = ${recipientId ?? ''})` : tx``;
  const order = tx`case when loop_id <> '0' and issuer_id = ${recipientId ?? ''} then 0 when loop_id <> '0' then 1 else 2 end, expires_at nulls last, serial`;
  const rows = await tx<NoteRow[]>`
    select serial, loop_id, currency, issuer_id, amount, expires_at from notes
    where serial in (
      select serial from (
        select serial, sum(amount) over (order by ${order}) - amount as before from notes
        where holder_kind = ${holder.kind} and holder_id = ${holder.id} and currency = ${entry.currency} ${byLoop} ${accepted} ${live}) running
      where before < ${String(entry.needed)}::bigint)
    and holder_kind = ${holder.kind} and holder_id = ${holder.id}
    order by ${order} for update`;
  return rows.map(toNote);
}

/** Notes a holder holds among the given serials (no lock; for reads). */
export async function selectNotes(sql: Queryable, holder: Holder, serials: bigint[]): Promise<Note[]> {
  const rows = await sql<NoteRow[]>`
    select serial, loop_id, currency, issuer_id, amount, expires_at from notes
    where holder_kind = ${holder.kind} and holder_id = ${holder.id} and serial = any(${serials.map(String)}::bigint[])
    order by serial`;
  return rows.map(toNote);
}

export async function nextSerial(tx: Queryable): Promise<bigint> {
  const rows = await tx<{ serial: bigint }[]>`select nextval('note_serials') as serial`;
  return rows[0].serial;
}

/** Creates a note (issuance; open loop cash merges into the wallet's open loop note) and adds it to the wallet balance and the issued total, in one statement. */
export async function insertIssuedNote(
  tx: Queryable,
  note: { holderId: string; loopId: string; issuerId: string; money: Money; expiresAt: Date | null; reserve?: bigint; planId?: string | null; distTransferId?: string | null },
  at: Date,
): Promise<bigint> {
  const { currency, minor } = note.money;
  const rows = await tx<{ serial: bigint; balance_rows: bigint; total_rows: bigint }[]>`
    with note as (
      insert into notes (serial, holder_kind, holder_id, loop_id, currency, issuer_id, amount, expires_at, parent_serial, created_at, reserve, plan_id, dist_transfer_id)
      values (nextval('note_serials'), 'wallet', ${note.holderId}, ${note.loopId}, ${currency}, ${note.issuerId}, ${String(minor)}::bigint, ${note.expiresAt}, null, ${at},
        ${String(note.reserve ?? 0n)}::bigint, ${note.planId ?? null}, ${note.distTransferId ?? null})
      -- Open loop cash issued to a wallet merges into its open loop note of the issuer (see mergesInto).
      on conflict (holder_id, currency, issuer_id) where holder_kind = 'wallet' and loop_id = '0'
      do update set amount = notes.amount + excluded.amount
      returning serial),
    balance as (
      insert into balances (profile_id, loop_id, currency, amount)
      values (${note.holderId}, ${note.loopId}, ${currency}, ${String(minor)}::bigint)
      on conflict (profile_id, currency, loop_id) do update set amount = balances.amount + excluded.amount
      returning 1),
    total as (
      insert into ledger_totals (loop_id, currency, issued, redeemed)
      values (${note.loopId}, ${currency}, ${String(minor)}::bigint, 0)
      on conflict (loop_id, currency) do update set issued = ledger_totals.issued + excluded.issued
      returning 1)
    select (select serial from note) as serial, (select count(*) from balance) as balance_rows, (select count(*) from total) as total_rows`;
  const row = rows[0];
  if (row.balance_rows !== 1n || row.total_rows !== 1n) throw new Error('issuance did not touch exactly one balance and one total');
  return row.serial;
}

interface BalanceDelta {
  profileId: string;
  loopId: string;
  currency: string;
  amount: bigint;
}

function balanceDeltas(from: Holder, to: Holder, picks: readonly Pick[]): BalanceDelta[] {
  const deltas = new Map<string, BalanceDelta>();
  const add = (profileId: string, pick: Pick, sign: bigint) => {
    const key = `${profileId}\u0000${pick.money.currency}\u0000${pick.loopId}`;
    const entry = deltas.get(key) ?? { profileId, loopId: pick.loopId, currency: pick.money.currency, amount: 0n };
    entry.amount += sign * pick.money.minor;
    deltas.set(key, entry);
  };
  for (const pick of picks) {
    if (from.kind === 'wallet') add(from.id, pick, -1n);
    if (to.kind === 'wallet') add(to.id, pick, 1n);
  }
  // A stable order of balance rows, so two opposite sends cannot deadlock.
  return [...deltas.entries()].sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)).map(([, delta]) => delta).filter((delta) => delta.amount !== 0n);
}

/**
 * Whether a pick lands in the recipient wallet's one open loop note of its currency and issuer
 * instead of moving as a note of its own: open loop cash that arrives in a wallet is merged, so a
 * wallet holds one open loop note per currency and issuer however many payments it received
 * (index notes_open_loop_merged, migration 0303; docs/decisions.md). Brand cash keeps its notes:
 * their expiry, reserve and plan are each note's own.
 */
function mergesInto(to: Holder, pick: Pick): boolean {
  return to.kind === 'wallet' && pick.loopId === openLoopId;
}

/** The merged open loop amounts one move adds, per currency and issuer (one row each, as the upsert needs). */
function mergedAmounts(picks: readonly Pick[]): { currency: string; issuerId: string; amount: bigint }[] {
  const sums = new Map<string, { currency: string; issuerId: string; amount: bigint }>();
  for (const pick of picks) {
    const key = `${pick.money.currency}\u0000${pick.issuerId}`;
    const entry = sums.get(key) ?? { currency: pick.money.currency, issuerId: pick.issuerId, amount: 0n };
    entry.amount += pick.money.minor;
    sums.set(key, entry);
  }
  return [...sums.values()];
}

/**
 * Moves the picked notes and adjusts both wallets' balances, in one statement; with `recorded`, the
 * same statement inserts the transfer's movement lines. Open loop cash into a wallet merges into its
 * open loop note (the notes it came from are drawn down, or deleted when spent whole); other whole
 * notes change holder and other parts are split off into new notes. A move within one wallet changes
 * no note. Throws when a note was not where expected.
 */
export async function moveNotes(tx: Queryable, from: Holder, to: Holder, picks: readonly Pick[], at: Date, recorded?: { transferId: string; lines: readonly MovementLine[] }): Promise<void> {
  if (picks.length === 0) {
    if (recorded) await insertMovements(tx, recorded.transferId, recorded.lines, at);
    return;
  }
  const self = from.kind === to.kind && from.id === to.id;
  const merging = picks.filter((pick) => mergesInto(to, pick) && !self);
  const moving = picks.filter((pick) => !mergesInto(to, pick) && !self);
  const whole = moving.filter((pick) => pick.whole).map((pick) => String(pick.serial));
  const parts = moving.filter((pick) => !pick.whole);
  const spent = merging.filter((pick) => pick.whole).map((pick) => String(pick.serial));
  const drawn = merging.filter((pick) => !pick.whole);
  const merged = mergedAmounts(merging);
  const deltas = balanceDeltas(from, to, picks);
  // A debit is an update (a missing or short balance fails); a credit is an upsert. An upsert
  // cannot carry a debit: Postgres checks the proposed row (negative) before the conflict.
  const debits = deltas.filter((delta) => delta.amount < 0n);
  const credits = deltas.filter((delta) => delta.amount > 0n);
  const rows = await tx<{ whole_rows: bigint; cut_rows: bigint; born_rows: bigint; spent_rows: bigint; drawn_rows: bigint; merged_rows: bigint; balance_rows: bigint; movement_rows: bigint }[]>`
    with whole as (
      update notes set holder_kind = ${to.kind}, holder_id = ${to.id}
      where serial = any(${whole}::bigint[]) and holder_kind = ${from.kind} and holder_id = ${from.id}
      returning serial),
    cut as (
      -- A part takes its share of the note's reserve (rounded down); the rest stays, so the sum is exact.
      update notes n set amount = n.amount - p.part, reserve = n.reserve - p.part_reserve
      from (
        select q.serial, q.part, (x.reserve * q.part / x.amount) as part_reserve
        from unnest(${parts.map((pick) => String(pick.serial))}::bigint[], ${parts.map((pick) => String(pick.money.minor))}::bigint[]) as q(serial, part)
        join notes x on x.serial = q.serial) as p
      where n.serial = p.serial and n.holder_kind = ${from.kind} and n.holder_id = ${from.id} and n.amount > p.part
      returning n.serial, p.part, p.part_reserve, n.loop_id, n.currency, n.issuer_id, n.expires_at, n.plan_id, n.dist_transfer_id),
    born as (
      insert into notes (serial, holder_kind, holder_id, loop_id, currency, issuer_id, amount, expires_at, parent_serial, created_at, reserve, plan_id, dist_transfer_id)
      select nextval('note_serials'), ${to.kind}, ${to.id}, loop_id, currency, issuer_id, part, expires_at, serial, ${at}, part_reserve, plan_id, dist_transfer_id from cut
      returning serial),
    ${mergeCtes(tx, from, to, { spent, drawn, merged }, at)},
    debited as (
      update balances b set amount = b.amount + d.amount
      from unnest(${debits.map((delta) => delta.profileId)}::text[], ${debits.map((delta) => delta.loopId)}::text[],
        ${debits.map((delta) => delta.currency)}::text[], ${debits.map((delta) => String(delta.amount))}::bigint[]) as d(profile_id, loop_id, currency, amount)
      where b.profile_id = d.profile_id and b.currency = d.currency and b.loop_id = d.loop_id
      returning 1),
    credited as (
      insert into balances (profile_id, loop_id, currency, amount)
      select * from unnest(${credits.map((delta) => delta.profileId)}::text[], ${credits.map((delta) => delta.loopId)}::text[],
        ${credits.map((delta) => delta.currency)}::text[], ${credits.map((delta) => String(delta.amount))}::bigint[])
      on conflict (profile_id, currency, loop_id) do update set amount = balances.amount + excluded.amount
      returning 1)
    ${recorded ? movementsInsert(tx, recorded.transferId, recorded.lines, at) : tx``}
    select (select count(*) from whole) as whole_rows, (select count(*) from cut) as cut_rows, (select count(*) from born) as born_rows,
      (select count(*) from spent) as spent_rows, (select count(*) from drawn) as drawn_rows, (select count(*) from merged) as merged_rows,
      (select count(*) from debited) + (select count(*) from credited) as balance_rows,
      ${recorded ? tx`(select count(*) from recorded)` : tx`0::bigint`} as movement_rows`;
  const row = rows[0];
  if (row.whole_rows !== BigInt(whole.length) || row.cut_rows !== BigInt(parts.length) || row.born_rows !== BigInt(parts.length)
    || row.spent_rows !== BigInt(spent.length) || row.drawn_rows !== BigInt(drawn.length) || row.merged_rows !== BigInt(merged.length)
    || row.balance_rows !== BigInt(deltas.length)) {
    throw new Error(`note move touched ${row.whole_rows}/${whole.length} whole, ${row.cut_rows}/${parts.length} cut, ${row.spent_rows}/${spent.length} spent, `
      + `${row.drawn_rows}/${drawn.length} drawn, ${row.merged_rows}/${merged.length} merged, ${row.balance_rows}/${deltas.length} balance rows`);
  }
  const movementCount = BigInt(recorded?.lines.length ?? 0);
  if (row.movement_rows !== movementCount) throw new Error(`movements insert touched ${row.movement_rows} of ${movementCount} rows`);
}

/**
 * The CTEs of moveNotes that merge open loop cash into the recipient wallet's note: `spent` deletes
 * the sender's notes spent whole, `drawn` draws down those spent in part, `merged` upserts the sums.
 */
function mergeCtes(tx: Queryable, from: Holder, to: Holder, picks: { spent: string[]; drawn: readonly Pick[]; merged: { currency: string; issuerId: string; amount: bigint }[] }, at: Date) {
  const { spent, drawn, merged } = picks;
  return tx`
    spent as (
      delete from notes where serial = any(${spent}::bigint[]) and holder_kind = ${from.kind} and holder_id = ${from.id} and loop_id = '0'
      returning serial),
    drawn as (
      update notes n set amount = n.amount - q.part
      from unnest(${drawn.map((pick) => String(pick.serial))}::bigint[], ${drawn.map((pick) => String(pick.money.minor))}::bigint[]) as q(serial, part)
      where n.serial = q.serial and n.holder_kind = ${from.kind} and n.holder_id = ${from.id} and n.loop_id = '0' and n.amount > q.part
      returning n.serial),
    merged as (
      insert into notes (serial, holder_kind, holder_id, loop_id, currency, issuer_id, amount, expires_at, parent_serial, created_at, reserve, plan_id, dist_transfer_id)
      select nextval('note_serials'), 'wallet', ${to.id}, '0', m.currency, m.issuer_id, m.amount, null, null, ${at}, 0, null, null
      from unnest(${merged.map((entry) => entry.currency)}::text[], ${merged.map((entry) => entry.issuerId)}::text[], ${merged.map((entry) => String(entry.amount))}::bigint[])
        as m(currency, issuer_id, amount)
      on conflict (holder_id, currency, issuer_id) where holder_kind = 'wallet' and loop_id = '0'
      do update set amount = notes.amount + excluded.amount
      returning serial)`;
}

/** The `recorded` CTE of moveNotes: the movement lines of a transfer, inserted from arrays. */
function movementsInsert(tx: Queryable, transferId: string, lines: readonly MovementLine[], at: Date) {
  const rows = movementRows(transferId, lines, at);
  return tx`,
    recorded as (
      insert into movements (transfer_id, number, line, at, action, from_id, to_id, loop_id, currency, issuer_id, amount)
      select ${transferId}, m.number, m.line, ${at}, m.action, m.from_id, m.to_id, m.loop_id, m.currency, m.issuer_id, m.amount
      from unnest(${rows.map((row) => row.number)}::integer[], ${rows.map((row) => row.line)}::integer[], ${rows.map((row) => row.action)}::text[],
        ${rows.map((row) => row.from_id)}::text[], ${rows.map((row) => row.to_id)}::text[], ${rows.map((row) => row.loop_id)}::text[],
        ${rows.map((row) => row.currency)}::text[], ${rows.map((row) => row.issuer_id)}::text[], ${rows.map((row) => String(row.amount))}::bigint[])
        as m(number, line, action, from_id, to_id, loop_id, currency, issuer_id, amount)
      returning 1)`;
}

/** Adds redeemed cash (a bank deposit) to the totals. */
export async function addRedeemed(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  const result = await tx`
    update ledger_totals set redeemed = redeemed + ${String(amount)}::bigint where loop_id = ${loopId} and currency = ${currency}`;
  if (result.count !== 1) throw new Error(`redeemed total for ${loopId}/${currency} touched ${result.count} rows`);
}

/** The movement rows the lines become: lines of one movement numbered 1, 2, ... in their order. */
export function movementRows(transferId: string, lines: readonly MovementLine[], at: Date): MovementRow[] {
  const lineNumbers = new Map<number, number>();
  return lines.map((line) => {
    const lineNumber = (lineNumbers.get(line.number) ?? 0) + 1;
    lineNumbers.set(line.number, lineNumber);
    return {
      transfer_id: transferId, number: line.number, line: lineNumber, at, action: line.action, from_id: line.fromId, to_id: line.toId,
      loop_id: line.loopId, currency: line.money.currency, issuer_id: line.issuerId, amount: line.money.minor,
    };
  });
}

export async function insertMovements(tx: Queryable, transferId: string, lines: readonly MovementLine[], at: Date): Promise<void> {
  if (lines.length === 0) return;
  const rows = movementRows(transferId, lines, at).map((row) => ({ ...row, amount: String(row.amount) }));
  const result = await tx`
    insert into movements ${tx(rows, 'transfer_id', 'number', 'line', 'at', 'action', 'from_id', 'to_id', 'loop_id', 'currency', 'issuer_id', 'amount')}`;
  if (result.count !== rows.length) throw new Error(`movements insert touched ${result.count} of ${rows.length} rows`);
}

export async function nextMovementNumber(tx: Queryable, transferId: string): Promise<number> {
  const rows = await tx<{ number: number | null }[]>`select max(number) as number from movements where transfer_id = ${transferId}`;
  return (rows[0].number ?? 0) + 1;
}

export async function selectMovements(sql: Queryable, transferIds: readonly string[]): Promise<MovementRow[]> {
  if (transferIds.length === 0) return [];
  return sql<MovementRow[]>`
    select transfer_id, number, line, at, action, from_id, to_id, loop_id, currency, issuer_id, amount from movements
    where transfer_id = any(${transferIds as string[]}::text[]) order by transfer_id, number, line`;
}

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

export interface BalanceRow {
  loop_id: string;
  currency: string;
  amount: bigint;
}

export async function selectBalances(sql: Queryable, profileId: string): Promise<BalanceRow[]> {
  return sql<BalanceRow[]>`
    select loop_id, currency, amount from balances where profile_id = ${profileId} and amount > 0 order by currency, loop_id`;
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

export interface HoldingRow {
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

/** A wallet's cash by loop, currency and issuer (for presend). */
export async function selectLoopSummary(sql: Queryable, profileId: string): Promise<LoopSummaryRow[]> {
  return sql<LoopSummaryRow[]>`
    select loop_id, currency, issuer_id, sum(amount)::bigint as amount from notes
    where holder_kind = 'wallet' and holder_id = ${profileId}
    group by loop_id, currency, issuer_id order by currency, loop_id, issuer_id`;
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

/** Adds expired brand cash to the totals. */
export async function addExpired(tx: Queryable, loopId: string, currency: string, amount: bigint): Promise<void> {
  const result = await tx`
    update ledger_totals set expired = expired + ${String(amount)}::bigint where loop_id = ${loopId} and currency = ${currency}`;
  if (result.count !== 1) throw new Error(`expired total for ${loopId}/${currency} touched ${result.count} rows`);
}

export interface ReserveRow {
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

/** A wallet-held note of brand cash whose expiry has come. */
export interface DueNoteRow {
  serial: bigint;
  holder_id: string;
  loop_id: string;
  currency: string;
  issuer_id: string;
  amount: bigint;
  reserve: bigint;
}

/**
 * Wallet-held brand cash whose expiry has come: of one design (the sweep) or of one holder (cash
 * back from escrow), and of one holder and design row-locked (`lock`), for expiry's gate after it
 * locked the balances: the gate's order, balances before notes.
 */
export async function selectDueNotes(db: Queryable, scope: { loopId?: string; holderId?: string; lock: boolean }, now: Date, limit: number): Promise<DueNoteRow[]> {
  const loop = scope.loopId === undefined ? db`loop_id <> '0'` : db`loop_id = ${scope.loopId}`;
  const holder = scope.holderId === undefined ? db`` : db`and holder_id = ${scope.holderId}`;
  return db<DueNoteRow[]>`
    select serial, holder_id, loop_id, currency, issuer_id, amount, reserve from notes
    where ${loop} and holder_kind = 'wallet' ${holder} and expires_at is not null and expires_at <= ${now}
    order by serial limit ${limit} ${scope.lock ? db`for update` : db``}`;
}

/** The soonest expiry still ahead among the live notes of a design. */
export async function selectNextExpiry(db: Queryable, loopId: string): Promise<Date | null> {
  const rows = await db<{ due: Date | null }[]>`
    select min(expires_at) as due from notes where loop_id = ${loopId} and holder_kind in ('wallet', 'transfer') and expires_at is not null`;
  return rows[0]?.due ?? null;
}

/** How many of the given notes are brand cash past its expiry. */
export async function countExpiredNotes(db: Queryable, serials: readonly bigint[], at: Date): Promise<number> {
  if (serials.length === 0) return 0;
  const rows = await db<{ count: number }[]>`
    select count(*)::int as count from notes where serial = any(${serials.map(String)}::bigint[]) and loop_id <> '0' and expires_at is not null and expires_at <= ${at}`;
  return rows[0].count;
}

/** A wallet holding a design's cash: amount and soonest expiry. */
export interface HolderSummaryRow {
  holder_id: string;
  currency: string;
  amount: bigint;
  soonest_expiry: Date | null;
}

/** The wallets holding a design's cash: amount and soonest expiry, soonest expiry first. */
export async function selectHolders(db: Queryable, loopId: string, limit: number): Promise<HolderSummaryRow[]> {
  return db<HolderSummaryRow[]>`
    select holder_id, currency, sum(amount)::bigint as amount, min(expires_at) as soonest_expiry from notes
    where loop_id = ${loopId} and holder_kind = 'wallet' group by holder_id, currency
    order by min(expires_at) nulls last, holder_id limit ${limit}`;
}

/** A wallet's brand cash note as redemption reads it: its reserve, plan and distribution. */
export interface ArrivedNote {
  serial: bigint;
  loop_id: string;
  currency: string;
  issuer_id: string;
  amount: bigint;
  reserve: bigint;
  plan_id: string | null;
  dist_transfer_id: string | null;
}

/** A redeemer's notes of the designs, row-locked in serial order, at most `limit`. */
export async function selectArrivedNotesForUpdate(tx: Queryable, holderId: string, loopIds: readonly string[], limit: number): Promise<ArrivedNote[]> {
  return tx<ArrivedNote[]>`
    select serial, loop_id, currency, issuer_id, amount, reserve, plan_id, dist_transfer_id from notes
    where holder_kind = 'wallet' and holder_id = ${holderId} and loop_id = any(${[...loopIds]}::text[])
    order by serial limit ${limit} for update`;
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
