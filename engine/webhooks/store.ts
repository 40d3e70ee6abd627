// SQL for webhooks and their frozen delivery bodies (the queueing itself is a CTE of the transfer
// writes, engine/transfers/store.ts).
import type { Queryable } from '../storage/database.ts';

export type WebhookState = 'pending' | 'completed' | 'canceled';

export interface WebhookRow {
  id: string;
  profile_id: string;
  url: string;
  workflow_types: string[] | null;
  states: WebhookState[] | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  created_at: Date;
  rotated_at: Date | null;
}

const columns = 'id, profile_id, url, workflow_types, states, secret, previous_secret, previous_secret_until, created_at, rotated_at';

export async function insertWebhook(db: Queryable, row: Omit<WebhookRow, 'previous_secret' | 'previous_secret_until' | 'rotated_at'>): Promise<void> {
  await db`
    insert into webhooks (id, profile_id, url, workflow_types, states, secret, created_at)
    values (${row.id}, ${row.profile_id}, ${row.url}, ${row.workflow_types}, ${row.states}, ${row.secret}, ${row.created_at})`;
}

export async function selectWebhooks(db: Queryable, profileId: string, limit: number): Promise<WebhookRow[]> {
  return db<WebhookRow[]>`select ${db.unsafe(columns)} from webhooks where profile_id = ${profileId} order by created_at, id limit ${limit}`;
}

export async function countWebhooks(db: Queryable, profileId: string): Promise<number> {
  const rows = await db<{ count: bigint }[]>`select count(*) as count from webhooks where profile_id = ${profileId}`;
  return Number(rows[0].count);
}

export async function selectWebhook(db: Queryable, id: string): Promise<WebhookRow | null> {
  const rows = await db<WebhookRow[]>`select ${db.unsafe(columns)} from webhooks where id = ${id}`;
  return rows[0] ?? null;
}

export async function deleteWebhook(db: Queryable, profileId: string, id: string): Promise<boolean> {
  const result = await db`delete from webhooks where id = ${id} and profile_id = ${profileId}`;
  return result.count === 1;
}

export async function rotateSecret(db: Queryable, id: string, secret: string, at: Date, previousUntil: Date): Promise<void> {
  const result = await db`
    update webhooks set previous_secret = secret, previous_secret_until = ${previousUntil}, secret = ${secret}, rotated_at = ${at}
    where id = ${id}`;
  if (result.count !== 1) throw new Error(`webhook ${id} rotation touched ${result.count} rows`);
}

/** Keeps the body of a delivery's first attempt in its outbox row, so every retry sends the same snapshot. */
export async function freezeDeliveryBody(db: Queryable, outboxId: bigint, body: string): Promise<void> {
  await db`update outbox set payload = payload || jsonb_build_object('body', ${body}::text) where id = ${String(outboxId)}::bigint`;
}

/** Deliveries of one webhook, newest first (the operator's view of what was sent and what failed). */
export async function selectDeliveries(db: Queryable, webhookId: string, limit: number): Promise<{ id: bigint; payload: { transfer_id: string; activity_count: number }; attempts: number; created_at: Date; delivered_at: Date | null; failed_at: Date | null; next_attempt_at: Date; last_error: string | null }[]> {
  return db`
    select id, payload, attempts, created_at, delivered_at, failed_at, next_attempt_at, last_error from outbox
    where kind = 'webhook.deliver' and payload ->> 'webhook_id' = ${webhookId}
    order by id desc limit ${limit}` as never;
}
