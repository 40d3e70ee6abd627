// A profile's webhooks: registering, listing, removing, rotating the secret, and the log of their
// deliveries. Another profile's webhook answers as not found.
import type { Unit } from '../actors/command.ts';
import { randomSecret } from '../ids.ts';
import { webhookRotationOverlapMs, webhookSecretBytes, webhooksPerProfileMax } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import { checkDestination } from './destination.ts';
import type { WebhookFailure } from './errors.ts';
import type { DeliveryJson, WebhookJson, WebhooksContext } from './types.ts';
import * as store from './store.ts';

const notFound: WebhookFailure = { ok: false, error: 'webhook_not_found' };

export function sourceUrl(ctx: WebhooksContext, row: { profile_id: string; id: string }): string {
  return `${ctx.core.config.publicUrl}/p/${row.profile_id}/webhook/${row.id}`;
}

function json(ctx: WebhooksContext, row: store.WebhookRow): WebhookJson {
  return {
    id: row.id, profile_id: row.profile_id, url: row.url, workflow_types: row.workflow_types, states: row.states, source_url: sourceUrl(ctx, row),
    created_at: row.created_at.toISOString(), rotated_at: row.rotated_at?.toISOString() ?? null,
    previous_secret_until: row.previous_secret_until && row.previous_secret_until > ctx.core.clock.now() ? row.previous_secret_until.toISOString() : null,
  };
}

const validId = (webhookId: string) => /^[0-9]{1,20}$/.test(webhookId);

async function find(ctx: WebhooksContext, webhookId: string, db: Queryable = ctx.core.sql): Promise<store.WebhookRow | null> {
  return validId(webhookId) ? store.selectWebhook(db, webhookId) : null;
}

async function own(ctx: WebhooksContext, profileId: string, webhookId: string, db: Queryable = ctx.core.sql): Promise<store.WebhookRow | null> {
  const row = await find(ctx, webhookId, db);
  // Another profile's webhook answers as not found, so ids cannot be probed.
  return row && row.profile_id === profileId ? row : null;
}

const newSecret = () => `whsec_${randomSecret(webhookSecretBytes)}`;

export async function add(
  ctx: WebhooksContext,
  profileId: string,
  input: { url: string; workflowTypes?: string[]; states?: store.WebhookState[] },
): Promise<{ ok: true; webhook: WebhookJson; secret: string } | WebhookFailure> {
  const destination = await checkDestination(input.url, ctx.policy);
  if (!destination.ok) return { ok: false, error: 'invalid', invalid: { url: destination.reason } };
  const secret = newSecret();
  // One command per profile at a time, so the per-profile limit holds under concurrent adds.
  return ctx.core.commands.run('webhook.add', [{ kind: 'webhooks', id: profileId }], async (unit: Unit<WebhookFailure>) => {
    if ((await store.countWebhooks(unit.tx, profileId)) >= webhooksPerProfileMax) {
      return unit.reject({ ok: false, error: 'too_many_webhooks', description: `A profile registers at most ${webhooksPerProfileMax} webhooks.` });
    }
    const row: store.WebhookRow = {
      id: await unit.newShortId('webhook'), profile_id: profileId, url: destination.url.toString(), workflow_types: input.workflowTypes ?? null,
      states: input.states ?? null, secret, previous_secret: null, previous_secret_until: null, created_at: unit.now, rotated_at: null,
    };
    await store.insertWebhook(unit.tx, row);
    return { ok: true as const, webhook: json(ctx, row), secret };
  });
}

export async function list(ctx: WebhooksContext, profileId: string): Promise<WebhookJson[]> {
  return (await store.selectWebhooks(ctx.core.sql, profileId, webhooksPerProfileMax)).map((row) => json(ctx, row));
}

export async function get(ctx: WebhooksContext, profileId: string, webhookId: string): Promise<{ ok: true; webhook: WebhookJson } | WebhookFailure> {
  const row = await own(ctx, profileId, webhookId);
  return row ? { ok: true, webhook: json(ctx, row) } : notFound;
}

export async function remove(ctx: WebhooksContext, profileId: string, webhookId: string): Promise<{ ok: true } | WebhookFailure> {
  if (!validId(webhookId)) return notFound;
  const removed = await ctx.core.commands.run('webhook.remove', [{ kind: 'webhooks', id: profileId }], (unit) => store.deleteWebhook(unit.tx, profileId, webhookId));
  return removed ? { ok: true } : notFound;
}

export async function rotate(ctx: WebhooksContext, profileId: string, webhookId: string): Promise<{ ok: true; webhook: WebhookJson; secret: string } | WebhookFailure> {
  const secret = newSecret();
  return ctx.core.commands.run('webhook.rotate', [{ kind: 'webhooks', id: profileId }], async (unit: Unit<WebhookFailure>) => {
    const row = await own(ctx, profileId, webhookId, unit.tx);
    if (!row) return unit.reject(notFound);
    const until = new Date(unit.now.getTime() + webhookRotationOverlapMs);
    await store.rotateSecret(unit.tx, webhookId, secret, unit.now, until);
    return { ok: true as const, webhook: json(ctx, { ...row, previous_secret: row.secret, previous_secret_until: until, secret, rotated_at: unit.now }), secret };
  });
}

export async function ownerOf(ctx: WebhooksContext, webhookId: string): Promise<string | null> {
  return (await find(ctx, webhookId))?.profile_id ?? null;
}

export async function deliveries(ctx: WebhooksContext, profileId: string, webhookId: string, limit: number): Promise<{ ok: true; deliveries: DeliveryJson[] } | WebhookFailure> {
  if (!(await own(ctx, profileId, webhookId))) return notFound;
  const rows = await store.selectDeliveries(ctx.core.sql, webhookId, limit);
  return {
    ok: true,
    deliveries: rows.map((row) => ({
      delivery_id: String(row.id), transfer_id: row.payload.transfer_id, activity_count: row.payload.activity_count, attempts: row.attempts,
      created_at: row.created_at.toISOString(), delivered_at: row.delivered_at?.toISOString() ?? null, failed_at: row.failed_at?.toISOString() ?? null,
      next_attempt_at: row.delivered_at || row.failed_at ? null : row.next_attempt_at.toISOString(), last_error: row.last_error,
    })),
  };
}
