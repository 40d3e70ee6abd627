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
import { add, deliveries, get, list, ownerOf, remove, rotate } from './registry.ts';
import type { WebhooksService, WebhooksContext } from './types.ts';
export type { WebhookJson, DeliveryJson, WebhooksService, WebhooksContext } from './types.ts';

export const webhookEffectKind = 'webhook.deliver';
export const webhookStates = ['pending', 'completed', 'canceled'] as const;

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
