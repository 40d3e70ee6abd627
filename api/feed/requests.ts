// The requests of the bidirectional API (supplement 4.11): each message is a JSON object with a
// `path`; /ping echoes, /wallet/receive-feed lists receipts and may subscribe. Answers and errors
// are JSON objects too; an error is {error_code, error} with the HTTP status as a string.
import { z } from 'zod';
import type { EdgeEngine } from '../../engine/engine.ts';
import { feedReceiptsListDefault, feedReceiptsListMax, feedRequestCharsMax } from '../../engine/limits.ts';
import type { FeedSink } from '../../engine/feed/service.ts';
import type { Authenticators } from '../http/principals.ts';

export const receiveFeedPath = '/wallet/receive-feed';

export interface FeedErrorMessage {
  error_code: string;
  error: string;
  error_description?: string;
  path?: string;
  request_id?: string;
  invalid?: Record<string, string>;
}

/** What a request answers: messages to send, and maybe a subscription for the connection to hold. */
export interface RequestOutcome {
  reply: Record<string, unknown>;
  subscription?: { unsubscribe(): void };
}

const timestamp = z.string().max(feedRequestCharsMax).refine((text) => /^\d{4}-\d{2}-\d{2}T/.test(text) && !Number.isNaN(Date.parse(text)), 'an ISO 8601 timestamp');

const receiveFeedRequest = z.strictObject({
  path: z.literal(receiveFeedPath),
  access_token: z.string().min(1).max(feedRequestCharsMax),
  request_id: z.string().max(feedRequestCharsMax).optional(),
  limit: z.number().int().min(1).max(feedReceiptsListMax).optional(),
  subscribe: z.boolean().optional(),
  before_timestamp: timestamp.optional(),
  /** Cashloop: a reconnect's catch-up, the last timestamp the subscriber saw (docs/receive-feed.md). */
  after_timestamp: timestamp.optional(),
});

export function errorMessage(code: string, error: string, extra: Partial<FeedErrorMessage> = {}): FeedErrorMessage {
  return { error_code: code, error, ...extra };
}

/** Reads one message: a JSON object with a string `path`, or the error to answer. */
export function parseMessage(text: string): { ok: true; request: Record<string, unknown> & { path: string } } | { ok: false; message: FeedErrorMessage } {
  if (text.length > feedRequestCharsMax) return { ok: false, message: errorMessage('413', 'message_too_large', { error_description: `A message may hold at most ${feedRequestCharsMax} characters.` }) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, message: errorMessage('400', 'malformed_message', { error_description: 'A message is a JSON object.' }) };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, message: errorMessage('400', 'malformed_message', { error_description: 'A message is a JSON object.' }) };
  const path = (parsed as { path?: unknown }).path;
  if (typeof path !== 'string') return { ok: false, message: errorMessage('400', 'missing_path', { error_description: 'Every request names its path.' }) };
  return { ok: true, request: parsed as Record<string, unknown> & { path: string } };
}

/** Answers /wallet/receive-feed: the token's receipts, and a subscription when asked for. */
export async function receiveFeed(engine: EdgeEngine, authenticators: Authenticators, request: Record<string, unknown>, sink: FeedSink): Promise<RequestOutcome> {
  const echo = typeof request.request_id === 'string' ? { request_id: request.request_id } : {};
  const fail = (code: string, error: string, extra: Partial<FeedErrorMessage> = {}) => ({ reply: { ...errorMessage(code, error, { path: receiveFeedPath, ...echo, ...extra }) } });
  if (typeof request.access_token !== 'string' || request.access_token === '') return fail('401', 'missing_token', { error_description: 'An access token is required.' });
  const check = await authenticators.authenticateToken(request.access_token);
  if (!check.ok) return fail('401', check.error);
  if (!check.principal.permissions.has('receive_cash')) return fail('403', 'insufficient_scope', { error_description: 'This call needs the receive_cash permission.' });
  const parsed = receiveFeedRequest.safeParse(request);
  if (!parsed.success) return fail('400', 'invalid', { invalid: Object.fromEntries(parsed.error.issues.map((issue) => [issue.path.join('.') || 'request', issue.message])) });
  const input = parsed.data;
  if (input.subscribe && input.before_timestamp) return fail('400', 'invalid', { invalid: { before_timestamp: 'subscribe and before_timestamp are not combined' } });
  const principal = check.principal;
  let subscription: RequestOutcome['subscription'];
  if (input.subscribe) {
    // Subscribe before reading, so a receipt committed in between is listed, told, or both (never neither).
    const subscribed = engine.services.feed.subscribe({ profileId: principal.profileId, tokenId: principal.tokenId, token: request.access_token, hardExpiresAt: principal.hardExpiresAt }, sink);
    if (!subscribed.ok) return fail('429', subscribed.error, { error_description: subscribed.description });
    subscription = subscribed;
  }
  const page = await engine.services.feed.receipts(principal.profileId, {
    limit: input.limit ?? feedReceiptsListDefault,
    before: input.before_timestamp ? new Date(input.before_timestamp) : null,
    after: input.after_timestamp ? new Date(input.after_timestamp) : null,
  }).catch((error: unknown) => {
    subscription?.unsubscribe();
    throw error;
  });
  return { reply: { path: receiveFeedPath, ...echo, subscribed: Boolean(subscription), receipts: page.receipts, more: page.more }, subscription };
}
