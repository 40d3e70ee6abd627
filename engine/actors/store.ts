// SQL for actor snapshots, timers and outbox rows. Only the command path and the sweeper call it.
import type { Queryable } from '../storage/database.ts';
import type { StoredSnapshot } from './actor.ts';

export interface ActorRow {
  version: number;
  snapshot: StoredSnapshot;
}

/** An actor's snapshot read outside any command (no lock): for checks made before a command, which the command confirms. */
export async function selectActor(db: Queryable, kind: string, id: string): Promise<ActorRow | null> {
  const rows = await db<ActorRow[]>`select version, snapshot from actors where kind = ${kind} and id = ${id}`;
  return rows[0] ?? null;
}

export async function selectActorForUpdate(tx: Queryable, kind: string, id: string): Promise<ActorRow | null> {
  const rows = await tx<ActorRow[]>`
    select version, snapshot from actors where kind = ${kind} and id = ${id} for update`;
  return rows[0] ?? null;
}

export async function insertActor(tx: Queryable, kind: string, id: string, state: string, snapshot: StoredSnapshot, at: Date): Promise<void> {
  const result = await tx`
    insert into actors (kind, id, version, state, snapshot, created_at, updated_at)
    values (${kind}, ${id}, 1, ${state}, ${tx.json(snapshot as never)}, ${at}, ${at})`;
  if (result.count !== 1) throw new Error(`actor ${kind}:${id} insert touched ${result.count} rows`);
}

/** Writes a snapshot fenced by the version it was loaded at; returns false when someone else wrote first. */
export async function updateActor(tx: Queryable, kind: string, id: string, expectedVersion: number, state: string, snapshot: StoredSnapshot, at: Date): Promise<boolean> {
  const result = await tx`
    update actors set version = version + 1, state = ${state}, snapshot = ${tx.json(snapshot as never)}, updated_at = ${at}
    where kind = ${kind} and id = ${id} and version = ${expectedVersion}`;
  if (result.count > 1) throw new Error(`actor ${kind}:${id} update touched ${result.count} rows`);
  return result.count === 1;
}

export async function upsertTimer(tx: Queryable, kind: string, id: string, name: string, dueAt: Date, event: unknown): Promise<void> {
  await tx`
    insert into timers (actor_kind, actor_id, name, event, due_at)
    values (${kind}, ${id}, ${name}, ${tx.json(event as never)}, ${dueAt})
    on conflict (actor_kind, actor_id, name) do update set event = excluded.event, due_at = excluded.due_at`;
}

export async function deleteTimer(tx: Queryable, kind: string, id: string, name: string): Promise<void> {
  await tx`delete from timers where actor_kind = ${kind} and actor_id = ${id} and name = ${name}`;
}

export interface TimerRow {
  id: bigint;
  actor_kind: string;
  actor_id: string;
  name: string;
  event: Record<string, unknown>;
  due_at: Date;
}

export async function selectDueTimers(sql: Queryable, now: Date, limit: number): Promise<TimerRow[]> {
  return sql<TimerRow[]>`
    select id, actor_kind, actor_id, name, event, due_at from timers
    where due_at <= ${now} order by due_at, id limit ${limit}`;
}

/** Claims a due timer inside the delivering transaction; null when another process delivered it. */
export async function claimTimer(tx: Queryable, timerId: bigint, now: Date): Promise<TimerRow | null> {
  const rows = await tx<TimerRow[]>`
    delete from timers where id = ${timerId} and due_at <= ${now}
    returning id, actor_kind, actor_id, name, event, due_at`;
  return rows[0] ?? null;
}

export async function insertOutbox(tx: Queryable, rows: { kind: string; payload: unknown }[], at: Date): Promise<bigint[]> {
  if (rows.length === 0) return [];
  const inserted = await tx<{ id: bigint }[]>`
    insert into outbox ${tx(rows.map((row) => ({ kind: row.kind, payload: tx.json(row.payload as never), created_at: at, next_attempt_at: at })) as never)}
    returning id`;
  return inserted.map((row) => row.id);
}

export async function nextShortSequence(tx: Queryable): Promise<bigint> {
  const rows = await tx<{ value: bigint }[]>`select nextval('ids_short') as value`;
  return rows[0].value;
}

export async function nextLongSequence(tx: Queryable): Promise<bigint> {
  const rows = await tx<{ value: bigint }[]>`select nextval('ids_long') as value`;
  return rows[0].value;
}

export interface OutboxRow {
  id: bigint;
  kind: string;
  payload: unknown;
  attempts: number;
}

/** Leases pending outbox rows (all due ones, or the given ids) so one process delivers each at a time. */
export async function leaseOutbox(sql: Queryable, now: Date, leaseUntil: Date, limit: number, ids?: bigint[]): Promise<OutboxRow[]> {
  const only = ids ? sql`and id = any(${ids.map(String)}::bigint[])` : sql``;
  return sql<OutboxRow[]>`
    update outbox set lease_until = ${leaseUntil}, attempts = attempts + 1
    where id in (
      select id from outbox
      where delivered_at is null and failed_at is null and next_attempt_at <= ${now}
        and (lease_until is null or lease_until < ${now}) ${only}
      order by id limit ${limit}
      for update skip locked)
    returning id, kind, payload, attempts`;
}

export async function markOutboxDelivered(sql: Queryable, id: bigint, at: Date): Promise<void> {
  await sql`update outbox set delivered_at = ${at}, lease_until = null, last_error = null where id = ${id}`;
}

export async function markOutboxRetry(sql: Queryable, id: bigint, nextAttemptAt: Date, error: string): Promise<void> {
  await sql`update outbox set next_attempt_at = ${nextAttemptAt}, lease_until = null, last_error = ${error} where id = ${id}`;
}

export async function markOutboxFailed(sql: Queryable, id: bigint, at: Date, error: string): Promise<void> {
  await sql`update outbox set failed_at = ${at}, lease_until = null, last_error = ${error} where id = ${id}`;
}

/**
 * Deletes up to `limit` outbox rows past their retention: delivered before `deliveredBefore` (the
 * short retention), or webhook deliveries and failed rows finished before `recordsBefore`. Answers
 * how many it deleted. A row being delivered or waiting for a retry is never touched.
 */
export async function pruneOutbox(sql: Queryable, deliveredBefore: Date, recordsBefore: Date, limit: number): Promise<number> {
  const result = await sql`
    delete from outbox where id in (
      (select id from outbox where delivered_at is not null and kind <> 'webhook.deliver' and delivered_at < ${deliveredBefore}
        order by delivered_at limit ${limit})
      union all
      (select id from outbox where (kind = 'webhook.deliver' or failed_at is not null) and coalesce(delivered_at, failed_at) < ${recordsBefore}
        order by coalesce(delivered_at, failed_at) limit ${limit})
      limit ${limit})`;
  return result.count;
}
