// SQL that moves cash and records it: every move is one statement that moves the notes, adjusts
// the balances of both wallets and (when recorded) inserts the transfer's movement lines together.
import type { Queryable } from '../storage/database.ts';
import { openLoopId, type Pick } from './allocation.ts';
import type { Holder, MovementLine, MovementRow } from './types.ts';

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
