// Webhooks: a profile registers handler URLs (optionally filtered by workflow type and state) and
// every change of a transfer it is a stakeholder in is POSTed to them as the supplement's payload
// ({source_url, webhook_url, transfers: [TransferDetail]}), through the outbox: at least once,
// retried with backoff, one delivery id (the outbox row) per change and webhook across retries.
// Each delivery is signed (signing.ts) and goes only where the destination policy allows.
import type { Core } from '../core.ts';
import { webhookAttemptsMax, webhookBackoffBaseMs } from '../limits.ts';
import type { TransferQueries } from '../transfers/queries.ts';
import { deliver, type DeliveryPayload } from './delivery.ts';
import type { DestinationPolicy } from './destination.ts';
import type { WebhookFailure } from './errors.ts';
import { add, deliveries, get, list, ownerOf, remove, rotate } from './registry.ts';
import type * as store from './store.ts';

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

export interface WebhooksContext {
  core: Core;
  queries: TransferQueries;
  /** Where deliveries may go: private addresses are refused in production unless allowed. */
  policy: DestinationPolicy;
}

export function createWebhooksService(core: Core, dependencies: { queries: TransferQueries }): WebhooksService {
  const policy: DestinationPolicy = { guarded: core.config.mode === 'production' && !core.config.webhookAllowPrivate };
  const ctx: WebhooksContext = { core, queries: dependencies.queries, policy };
  core.outbox.register(webhookEffectKind, ((payload: DeliveryPayload, context: { outboxId: bigint }) => deliver(ctx, payload, context)) as never, {
    attemptsMax: webhookAttemptsMax,
    backoffBaseMs: webhookBackoffBaseMs,
  });
  return {
    add: (profileId, input) => add(ctx, profileId, input),
    list: (profileId) => list(ctx, profileId),
    get: (profileId, webhookId) => get(ctx, profileId, webhookId),
    remove: (profileId, webhookId) => remove(ctx, profileId, webhookId),
    rotate: (profileId, webhookId) => rotate(ctx, profileId, webhookId),
    ownerOf: (webhookId) => ownerOf(ctx, webhookId),
    deliveries: (profileId, webhookId, limit) => deliveries(ctx, profileId, webhookId, limit),
  };
}
