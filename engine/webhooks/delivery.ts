// Delivering one change to one webhook (the outbox's handler): the body frozen at the first
// attempt, signed with the current and any overlapping previous secret, POSTed where the policy allows.
import http from 'node:http';
import https from 'node:https';
import { assertOutsideCommand } from '../actors/command.ts';
import { webhookAnswerBytesMax, webhookTimeoutMs } from '../limits.ts';
import { checkUrl, guardedLookup, type DestinationPolicy } from './destination.ts';
import { sourceUrl } from './registry.ts';
import type { WebhooksContext } from './types.ts';
import { deliveryHeader, sign, signatureHeader } from './signing.ts';
import * as store from './store.ts';

export interface DeliveryPayload {
  webhook_id: string;
  profile_id: string;
  transfer_id: string;
  activity_count: number;
  /** The first attempt's body, kept so retries send the same snapshot. */
  body?: string;
}

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

/** The body to send: the frozen one, or the transfer as the owner sees it now (then frozen); undefined when the owner no longer sees it. */
async function bodyOf(ctx: WebhooksContext, hook: store.WebhookRow, payload: DeliveryPayload, outboxId: bigint): Promise<string | undefined> {
  if (payload.body !== undefined) return payload.body;
  const detail = await ctx.queries.detail(hook.profile_id, payload.transfer_id);
  if (!detail.ok) return undefined;
  const body = JSON.stringify({ source_url: sourceUrl(ctx, hook), webhook_url: hook.url, transfers: [{ ...detail.transfer, steps_html: '' }] });
  await store.freezeDeliveryBody(ctx.core.sql, outboxId, body);
  return body;
}

export async function deliver(ctx: WebhooksContext, payload: DeliveryPayload, context: { outboxId: bigint }): Promise<void> {
  const hook = await store.selectWebhook(ctx.core.sql, payload.webhook_id);
  // A removed webhook gets nothing more; a viewer who is no longer a stakeholder neither.
  if (!hook || hook.profile_id !== payload.profile_id) return;
  const body = await bodyOf(ctx, hook, payload, context.outboxId);
  if (body === undefined) return;
  const now = ctx.core.clock.now();
  const secrets = [hook.secret, ...(hook.previous_secret && hook.previous_secret_until && hook.previous_secret_until > now ? [hook.previous_secret] : [])];
  // The form, scheme and a literal address here; a name's addresses inside the request's own lookup (guardedLookup).
  const destination = checkUrl(hook.url, ctx.policy);
  if (!destination.ok) throw new Error(`webhook URL ${destination.reason}`);
  const status = await post(destination.url, body, { [signatureHeader]: sign(body, secrets, now), [deliveryHeader]: String(context.outboxId) }, ctx.policy);
  if (status < 200 || status > 299) throw new Error(`handler answered ${status}`);
}
