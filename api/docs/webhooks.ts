// The operations of api/routes/webhooks.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { webhookErrors } from '../routes/webhooks.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const webhookDocs: OperationDocs = {
  getProfileWebhooks: {
    description:
      "The webhooks of the profile the token acts for (the path's profile id must be its own); their signing secrets are never shown again.",
    example: { profileId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  postProfileWebhooks: {
    description:
      "Registers a handler URL that receives a signed POST when a transfer of the profile changes state, optionally only for some workflow types and states (pending, completed, canceled). Answers the signing secret, this once.",
    example: { profileId: '1234567890', url: 'https://shop.example.com/hooks/cashloop' },
    errors: [...pick(webhookErrors, 'webhook_not_found', 'too_many_webhooks')],
  },
  getProfileWebhookByWebhookId: {
    description:
      "One webhook of the profile: its URL, workflow types and states, never its secret.",
    example: { profileId: '1234567890', webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  deleteProfileWebhookByWebhookId: {
    description:
      "Removes a webhook of the profile; no more deliveries are made to it, and those not yet made are dropped.",
    example: { profileId: '1234567890', webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  postProfileWebhookRotate: {
    description:
      "A new signing secret, answered once; the previous secret also signs for 24 hours so handlers can switch.",
    example: { profileId: '1234567890', webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  getProfileWebhookDeliveries: {
    description:
      "The webhook's deliveries, newest first: delivery id, transfer, attempts, delivered or failed, and the last error.",
    example: { profileId: '1234567890', webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  getAdminWebhooks: {
    description:
      "The webhooks of the profile with this UID; their secrets are never shown again. Operator key (the CLI drives it).",
    example: { uid: 'pat@example.com' },
    errors: [],
  },
  postAdminWebhooks: {
    description:
      "Registers a handler URL for the profile with this UID, optionally for some workflow types and states; answers its signing secret once. Operator key (the CLI drives it).",
    example: { uid: 'shop@example.com', url: 'https://shop.example.com/hooks/cashloop' },
    errors: [...pick(webhookErrors, 'too_many_webhooks')],
  },
  getAdminWebhookByWebhookId: {
    description:
      "One webhook, by id, whichever profile owns it; never its secret. Operator key (the CLI drives it).",
    example: { webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  deleteAdminWebhookByWebhookId: {
    description:
      "Removes a webhook; deliveries not yet made are dropped. Operator key (the CLI drives it).",
    example: { webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  postAdminWebhookRotate: {
    description:
      "A new signing secret, answered once; the previous one also signs for 24 hours. Operator key (the CLI drives it).",
    example: { webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
  getAdminWebhookDeliveries: {
    description:
      "The webhook's deliveries, newest first, with attempts and the last error. Operator key (the CLI drives it).",
    example: { webhookId: '1234567890' },
    errors: [...pick(webhookErrors, 'webhook_not_found')],
  },
};
