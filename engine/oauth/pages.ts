// Where a browser flow stands: the flow its cookie secret names, the page to render next, and
// redirects back to the app with parameters in the query or the fragment.
import { secretHash } from '../ids.ts';
import type { FlowOutcome, OauthContext } from './types.ts';
import * as store from './store.ts';
import type { FlowRow } from './store.ts';

export const expired: FlowOutcome = { kind: 'error', message: 'This sign-in page has expired. Go back to the app and start again.' };

export function withParams(uri: string, params: Record<string, string | null | undefined>, fragment = false): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) search.set(key, value);
  if (fragment) return `${uri.split('#')[0]}#${search.toString()}`;
  return `${uri}${uri.includes('?') ? '&' : '?'}${search.toString()}`;
}

export async function flowFor(ctx: OauthContext, flowSecret: string): Promise<FlowRow | null> {
  if (!flowSecret) return null;
  return store.selectFlow(ctx.core.sql, secretHash(flowSecret), ctx.core.clock.now());
}

export async function page(ctx: OauthContext, flowSecret: string, flow: FlowRow, pageName: 'signin' | 'code' | 'consent', extras: { message?: string; revealedCode?: string } = {}): Promise<FlowOutcome> {
  const app = await ctx.apps.get(flow.client_id);
  return { kind: 'page', page: pageName, flowSecret, flow, appName: app?.name ?? 'An app', ...extras };
}

/** After the attempt completes: consent. */
export async function afterAttempt(ctx: OauthContext, flowSecret: string, flow: FlowRow, result: Record<string, unknown>): Promise<FlowOutcome> {
  const { sql } = ctx.core;
  if (result.completed_mfa === true && typeof result.profile_id === 'string') {
    await store.updateFlow(sql, flow.id, { step: 'consent', profileId: result.profile_id });
    return page(ctx, flowSecret, { ...flow, step: 'consent', profile_id: result.profile_id }, 'consent');
  }
  if (typeof result.factor_id === 'string') {
    await store.updateFlow(sql, flow.id, { step: 'code', factorId: result.factor_id });
    const revealed = ctx.sandbox && Array.isArray(result.revealed_codes) ? String(result.revealed_codes[0] ?? '').split(' => ')[0] : undefined;
    return page(ctx, flowSecret, { ...flow, step: 'code', factor_id: result.factor_id }, 'code', { revealedCode: revealed || undefined });
  }
  return { kind: 'error', message: 'This wallet cannot sign in here yet. Use the app to finish setting it up.' };
}
