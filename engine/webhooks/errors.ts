// Named outcomes of webhook calls; api/routes/webhooks.ts maps each once.
export type WebhookError = 'invalid' | 'webhook_not_found' | 'too_many_webhooks';

export type WebhookFailure = { ok: false; error: WebhookError; invalid?: Record<string, string>; description?: string };
