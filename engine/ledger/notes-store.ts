// SQL that reads and writes notes: the notes a wallet spends (row-locked in spending order), a
// note issued (with its balance and the issued total, in one statement), brand cash due to expire,
// a design's holders and a redeemer's arrived notes. Moves of notes are moves-store.ts.
import type { Money } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import type { Note } from './allocation.ts';
import type { Holder, LoopSummaryRow } from './types.ts';

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

/** A wallet's cash by loop, currency and issuer (for presend). */
export async function selectLoopSummary(sql: Queryable, profileId: string): Promise<LoopSummaryRow[]> {
  return sql<LoopSummaryRow[]>`
    select loop_id, currency, issuer_id, sum(amount)::bigint as amount from notes
    where holder_kind = 'wallet' and holder_id = ${profileId}
    group by loop_id, currency, issuer_id order by currency, loop_id, issuer_id`;
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
