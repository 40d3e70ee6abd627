// Webhooks: a profile registers handler URLs (optionally filtered by workflow type and state) and
// every change of a transfer it is a stakeholder in is POSTed to them as the supplement's payload
// ({source_url, webhook_url, transfers: [TransferDetail]}), through the outbox: at least once,
// retried with backoff, one delivery id (the outbox row) per change and webhook across retries.
// Each delivery is signed (signing.ts) and goes only where the destination policy allows.
import http from 'node:http';
import https from 'node:https';
import { assertOutsideCommand, type Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { randomSecret } from '../ids.ts';
import {
  webhookAnswerBytesMax, webhookAttemptsMax, webhookBackoffBaseMs, webhookRotationOverlapMs, webhookSecretBytes, webhookTimeoutMs, webhooksPerProfileMax,
} from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { TransferQueries } from '../transfers/queries.ts';
import { checkDestination, checkUrl, guardedLookup, type DestinationPolicy } from './destination.ts';
import type { WebhookFailure } from './errors.ts';
import { deliveryHeader, sign, signatureHeader } from './signing.ts';
import * as store from './store.ts';

export const webhookEffectKind = 'webhook.deliver';
export const webhookStates = ['pending', 'completed', 'canceled'] as const;

export interface WebhookJson {
  id: string;
  profile_id: string;
  url: string;
  workflow_types: string[] | null;
  states: store.WebhookState[] | null;
  source_url: string;
  created_at: string;
  rotated_at: string | null;
  previous_secret_until: string | null;
}

export interface DeliveryJson {
  delivery_id: string;
  transfer_id: string;
  activity_count: number;
  attempts: number;
  created_at: string;
  delivered_at: string | null;
  failed_at: string | null;
  next_attempt_at: string | null;
  last_error: string | null;
}

export interface WebhooksService {
  add(profileId: string, input: { url: string; workflowTypes?: string[]; states?: store.WebhookState[] }): Promise<{ ok: true; webhook: WebhookJson; secret: string } | WebhookFailure>;
  list(profileId: string): Promise<WebhookJson[]>;
  get(profileId: string, webhookId: string): Promise<{ ok: true; webhook: WebhookJson } | WebhookFailure>;
  remove(profileId: string, webhookId: string): Promise<{ ok: true } | WebhookFailure>;
  /** A new secret; the previous one keeps signing for webhookRotationOverlapMs. */
  rotate(profileId: string, webhookId: string): Promise<{ ok: true; webhook: WebhookJson; secret: string } | WebhookFailure>;
  /** The profile a webhook belongs to (the operator's calls name only the webhook). */
  ownerOf(webhookId: string): Promise<string | null>;
  deliveries(profileId: string, webhookId: string, limit: number): Promise<{ ok: true; deliveries: DeliveryJson[] } | WebhookFailure>;
}

interface DeliveryPayload {
  webhook_id: string;
  profile_id: string;
  transfer_id: string;
  activity_count: number;
  /** The first attempt's body, kept so retries send the same snapshot. */
  body?: string;
}

const notFound: WebhookFailure = { ok: false, error: 'webhook_not_found' };

/** POSTs one delivery; resolves with the status, rejects on a network error or timeout. */
function post(url: URL, body: string, headers: Record<string, string>, policy: DestinationPolicy): Promise<number> {
  assertOutsideCommand('a webhook delivery');
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, fail) => {
    const request = client.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Cashloop-Webhooks/1', ...headers },
      timeout: webhookTimeoutMs,
      ...(policy.guarded ? { lookup: guardedLookup as never } : {}),
    }, (response) => {
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > webhookAnswerBytesMax) response.destroy();
      });
      response.on('close', () => resolve(response.statusCode ?? 0));
      response.on('error', () => resolve(response.statusCode ?? 0));
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${webhookTimeoutMs} ms`)));
    request.on('error', fail);
    request.end(body);
  });
}

export function createWebhooksService(core: Core, dependencies: { queries: TransferQueries }): WebhooksService {
  const { sql, commands, clock } = core;
  const policy: DestinationPolicy = { guarded: core.config.mode === 'production' && !core.config.webhookAllowPrivate };
  const sourceUrl = (row: { profile_id: string; id: string }) => `${core.config.publicUrl}/p/${row.profile_id}/webhook/${row.id}`;

  const json = (row: store.WebhookRow): WebhookJson => ({
    id: row.id, profile_id: row.profile_id, url: row.url, workflow_types: row.workflow_types, states: row.states, source_url: sourceUrl(row),
    created_at: row.created_at.toISOString(), rotated_at: row.rotated_at?.toISOString() ?? null,
    previous_secret_until: row.previous_secret_until && row.previous_secret_until > clock.now() ? row.previous_secret_until.toISOString() : null,
  });

  const validId = (webhookId: string) => /^[0-9]{1,20}$/.test(webhookId);

  async function find(webhookId: string, db: Queryable = sql): Promise<store.WebhookRow | null> {
    return validId(webhookId) ? store.selectWebhook(db, webhookId) : null;
  }

  async function own(profileId: string, webhookId: string, db: Queryable = sql): Promise<store.WebhookRow | null> {
    const row = await find(webhookId, db);
    // Another profile's webhook answers as not found, so ids cannot be probed.
    return row && row.profile_id === profileId ? row : null;
  }

  const newSecret = () => `whsec_${randomSecret(webhookSecretBytes)}`;

  async function deliver(payload: DeliveryPayload, context: { outboxId: bigint }): Promise<void> {
    const hook = await store.selectWebhook(sql, payload.webhook_id);
    // A removed webhook gets nothing more; a viewer who is no longer a stakeholder neither.
    if (!hook || hook.profile_id !== payload.profile_id) return;
    let body = payload.body;
    if (body === undefined) {
      const detail = await dependencies.queries.detail(hook.profile_id, payload.transfer_id);
      if (!detail.ok) return;
      body = JSON.stringify({ source_url: sourceUrl(hook), webhook_url: hook.url, transfers: [{ ...detail.transfer, steps_html: '' }] });
      await store.freezeDeliveryBody(sql, context.outboxId, body);
    }
    const now = clock.now();
    const secrets = [hook.secret, ...(hook.previous_secret && hook.previous_secret_until && hook.previous_secret_until > now ? [hook.previous_secret] : [])];
    // The form and scheme here; the addresses inside the request's own lookup (guardedLookup).
    const destination = checkUrl(hook.url, policy);
    if (!destination.ok) throw new Error(`webhook URL ${destination.reason}`);
    const status = await post(destination.url, body, { [signatureHeader]: sign(body, secrets, now), [deliveryHeader]: String(context.outboxId) }, policy);
    if (status < 200 || status > 299) throw new Error(`handler answered ${status}`);
  }

  core.outbox.register(webhookEffectKind, deliver as never, { attemptsMax: webhookAttemptsMax, backoffBaseMs: webhookBackoffBaseMs });

  return {
    async add(profileId, input) {
      const destination = await checkDestination(input.url, policy);
      if (!destination.ok) return { ok: false, error: 'invalid', invalid: { url: destination.reason } };
      const secret = newSecret();
      // One command per profile at a time, so the per-profile limit holds under concurrent adds.
      return commands.run('webhook.add', [{ kind: 'webhooks', id: profileId }], async (unit: Unit<WebhookFailure>) => {
        if ((await store.countWebhooks(unit.tx, profileId)) >= webhooksPerProfileMax) {
          return unit.reject({ ok: false, error: 'too_many_webhooks', description: `A profile registers at most ${webhooksPerProfileMax} webhooks.` });
        }
        const row: store.WebhookRow = {
          id: await unit.newShortId('webhook'), profile_id: profileId, url: destination.url.toString(), workflow_types: input.workflowTypes ?? null,
          states: input.states ?? null, secret, previous_secret: null, previous_secret_until: null, created_at: unit.now, rotated_at: null,
        };
        await store.insertWebhook(unit.tx, row);
        return { ok: true as const, webhook: json(row), secret };
      });
    },

    async list(profileId) {
      return (await store.selectWebhooks(sql, profileId, webhooksPerProfileMax)).map(json);
    },

    async get(profileId, webhookId) {
      const row = await own(profileId, webhookId);
      return row ? { ok: true, webhook: json(row) } : notFound;
    },

    async remove(profileId, webhookId) {
      if (!validId(webhookId)) return notFound;
      const removed = await commands.run('webhook.remove', [{ kind: 'webhooks', id: profileId }], (unit) => store.deleteWebhook(unit.tx, profileId, webhookId));
      return removed ? { ok: true } : notFound;
    },

    async rotate(profileId, webhookId) {
      const secret = newSecret();
      return commands.run('webhook.rotate', [{ kind: 'webhooks', id: profileId }], async (unit: Unit<WebhookFailure>) => {
        const row = await own(profileId, webhookId, unit.tx);
        if (!row) return unit.reject(notFound);
        const until = new Date(unit.now.getTime() + webhookRotationOverlapMs);
        await store.rotateSecret(unit.tx, webhookId, secret, unit.now, until);
        return { ok: true as const, webhook: json({ ...row, previous_secret: row.secret, previous_secret_until: until, secret, rotated_at: unit.now }), secret };
      });
    },

    async ownerOf(webhookId) {
      return (await find(webhookId))?.profile_id ?? null;
    },

    async deliveries(profileId, webhookId, limit) {
      if (!(await own(profileId, webhookId))) return notFound;
      const rows = await store.selectDeliveries(sql, webhookId, limit);
      return {
        ok: true,
        deliveries: rows.map((row) => ({
          delivery_id: String(row.id), transfer_id: row.payload.transfer_id, activity_count: row.payload.activity_count, attempts: row.attempts,
          created_at: row.created_at.toISOString(), delivered_at: row.delivered_at?.toISOString() ?? null, failed_at: row.failed_at?.toISOString() ?? null,
          next_attempt_at: row.delivered_at || row.failed_at ? null : row.next_attempt_at.toISOString(), last_error: row.last_error,
        })),
      };
    },
  };
}
