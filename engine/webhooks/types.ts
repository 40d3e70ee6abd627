// The types of engine/webhooks: the service's interface and what its parts share. A leaf
// module: it imports types only, so the parts import it without importing service.ts (no import cycle).
import type { Core } from '../core.ts';
import type { TransferQueries } from '../transfers/queries.ts';
import type { DestinationPolicy } from './destination.ts';
import type { WebhookFailure } from './errors.ts';
import type * as store from './store.ts';

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
