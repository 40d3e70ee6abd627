// Webhooks, an API of ours (the real service registers them in its web pages): a profile's own
// token (change_settings) manages /p/<id>/webhooks, the operator manages any profile's through
// /admin/webhooks (the CLI's `cashloop webhook`). The secret is answered once, at add and rotate.
import { z } from 'zod';
import type { EdgeEngine } from '../../engine/engine.ts';
import { loginCharsMax, webhookDeliveriesListDefault, webhookDeliveriesListMax, webhookFilterTypesMax, webhookUrlCharsMax, webhooksPerProfileMax } from '../../engine/limits.ts';
import type { WebhookError, WebhookFailure } from '../../engine/webhooks/errors.ts';
import { webhookStates } from '../../engine/webhooks/service.ts';
import { errorTable, httpError, edgeErrors } from '../http/errors.ts';
import { boundedString } from '../http/fields.ts';
import { defineRoute, type Caller, type RouteContext, type RouteDefinition, type TokenCaller } from '../http/route.ts';
import { profileIdOf } from './ledger-admin.ts';

export const webhookErrors = errorTable<WebhookError>({
  invalid: edgeErrors.invalid,
  webhook_not_found: { status: 404, error: 'not_found', description: 'No such webhook on this profile.' },
  too_many_webhooks: { status: 400, error: 'invalid', description: `A profile registers at most ${webhooksPerProfileMax} webhooks.` },
});

/** The success without its `ok`, or the failure raised as its HTTP error. */
function answer<R extends { ok: boolean }>(result: R | WebhookFailure): Omit<Exclude<R, WebhookFailure>, 'ok'> {
  if (!result.ok) {
    const failure = result as WebhookFailure;
    throw httpError(webhookErrors, failure.error, { invalid: failure.invalid, description: failure.description });
  }
  const { ok: _ok, ...rest } = result as Exclude<R, WebhookFailure>;
  return rest as never;
}

const webhook = z.strictObject({
  id: z.string(),
  profile_id: z.string(),
  url: z.string(),
  workflow_types: z.array(z.string()).nullable(),
  states: z.array(z.enum(webhookStates)).nullable(),
  source_url: z.string(),
  created_at: z.string(),
  rotated_at: z.string().nullable(),
  previous_secret_until: z.string().nullable(),
});
const withSecret = z.strictObject({ webhook, secret: z.string() });
const delivery = z.strictObject({
  delivery_id: z.string(), transfer_id: z.string(), activity_count: z.number().int(), attempts: z.number().int(), created_at: z.string(),
  delivered_at: z.string().nullable(), failed_at: z.string().nullable(), next_attempt_at: z.string().nullable(), last_error: z.string().nullable(),
});

const addFields = {
  url: boundedString(webhookUrlCharsMax, 1),
  workflow_types: z.array(z.string().regex(/^[a-z0-9_]{1,40}$/, 'must be a workflow type such as send or receive_ach_confirm')).min(1).max(webhookFilterTypesMax).optional(),
  states: z.array(z.enum(webhookStates)).min(1).max(webhookStates.length).optional(),
};
const empty = z.object({}).strict();
const deliveriesInput = z.object({ limit: z.coerce.number().int().min(1).max(webhookDeliveriesListMax).default(webhookDeliveriesListDefault) }).strict();

/** The routes of one way in: the profile's token (`/p/:profileId`) or the operator (`/admin`, by UID or webhook id). */
interface Scope<C extends Caller = Caller> {
  caller: C;
  base: string;
  tag: string;
  /** The profile the call acts for; for the operator's per-webhook calls, the webhook's own. */
  profile(context: RouteContext<any, C>): Promise<string>;
}

const own: Scope<TokenCaller> = {
  caller: { kind: 'token', permission: 'change_settings' },
  base: '/p/:profileId',
  tag: 'webhooks',
  async profile({ params, token }) {
    // Only the profile's own token (selected for a business, the business's) manages its webhooks.
    if (params.profileId !== token.profileId) throw httpError(webhookErrors, 'webhook_not_found', { description: 'Webhooks are managed with the profile\'s own token.' });
    return token.profileId;
  },
};

async function ownerOf(engine: EdgeEngine, webhookId: string): Promise<string> {
  const owner = await engine.services.webhooks.ownerOf(webhookId);
  if (!owner) throw httpError(webhookErrors, 'webhook_not_found');
  return owner;
}

const operator: Scope = {
  caller: { kind: 'operator' },
  base: '/admin',
  tag: 'admin',
  async profile({ engine, input, params }) {
    return params.webhookId ? ownerOf(engine, params.webhookId) : profileIdOf(engine, input.uid, 'uid');
  },
};

/** The list of a profile's webhooks, and a new one. */
function listRoutesOf(scope: Scope): RouteDefinition[] {
  const uid = scope === operator ? { uid: boundedString(loginCharsMax, 1) } : {};
  return [
    defineRoute({
      method: 'get',
      path: `${scope.base}/webhooks`,
      summary: 'The profile\'s webhooks (secrets are never shown again).',
      tags: [scope.tag],
      caller: scope.caller,
      input: z.object(uid).strict(),
      response: z.strictObject({ webhooks: z.array(webhook) }),
      // The operator names the profile by uid (400 when unknown); a token's path names its own profile (404 otherwise).
      errors: scope === operator ? [] : [404],
      async handler(context) {
        return { webhooks: await context.engine.services.webhooks.list(await scope.profile(context)) };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${scope.base}/webhooks`,
      summary: 'Registers a handler URL, optionally for some workflow types and states (pending, completed, canceled); answers its signing secret once.',
      tags: [scope.tag],
      caller: scope.caller,
      input: z.object({ ...uid, ...addFields }).strict(),
      response: withSecret,
      errors: scope === operator ? [] : [404],
      async handler(context) {
        const { input } = context;
        const result = await context.engine.services.webhooks.add(await scope.profile(context), { url: input.url, workflowTypes: input.workflow_types, states: input.states });
        return answer(result);
      },
    }),
  ];
}

/** GET, DELETE, rotate and deliveries of one webhook. */
function oneWebhookRoutesOf(scope: Scope): RouteDefinition[] {
  const one = `${scope.base}/webhook/:webhookId`;
  return [
    defineRoute({
      method: 'get',
      path: one,
      summary: 'One webhook.',
      tags: [scope.tag],
      caller: scope.caller,
      input: empty,
      response: z.strictObject({ webhook }),
      errors: [404],
      async handler(context) {
        return answer(await context.engine.services.webhooks.get(await scope.profile(context), context.params.webhookId));
      },
    }),
    defineRoute({
      method: 'delete',
      path: one,
      summary: 'Removes a webhook; deliveries not yet made are dropped.',
      tags: [scope.tag],
      caller: scope.caller,
      input: empty,
      response: z.strictObject({ removed: z.literal(true) }),
      errors: [404],
      async handler(context) {
        answer(await context.engine.services.webhooks.remove(await scope.profile(context), context.params.webhookId));
        return { removed: true as const };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${one}/rotate`,
      summary: 'A new signing secret (answered once); the previous one also signs for 24 hours.',
      tags: [scope.tag],
      caller: scope.caller,
      input: empty,
      response: withSecret,
      errors: [404],
      async handler(context) {
        return answer(await context.engine.services.webhooks.rotate(await scope.profile(context), context.params.webhookId));
      },
    }),
    defineRoute({
      method: 'get',
      path: `${one}/deliveries`,
      summary: 'The webhook\'s deliveries, newest first: delivery id, transfer, attempts, delivered or failed, last error.',
      tags: [scope.tag],
      caller: scope.caller,
      input: deliveriesInput,
      response: z.strictObject({ deliveries: z.array(delivery) }),
      errors: [404],
      async handler(context) {
        return answer(await context.engine.services.webhooks.deliveries(await scope.profile(context), context.params.webhookId, context.input.limit));
      },
    }),
  ];
}

export const webhookRoutes: RouteDefinition[] = [own, operator].flatMap((scope) => [...listRoutesOf(scope), ...oneWebhookRoutesOf(scope)]);
