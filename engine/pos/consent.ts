// Pull consent: a customer lets a business pull payments from its wallet, and may take it back; the
// list of the businesses it lets pull.
import { pullConsentsListMax } from '../limits.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { parseUid } from '../uids.ts';
import type { PosContext } from './context.ts';
import { invalid, type PosFailure } from './errors.ts';
import * as store from './store.ts';

/** The profile a typed UID names, or null. */
export async function profileByUid(ctx: PosContext, uid: string): Promise<ProfileRecord | null> {
  const parsed = parseUid(uid);
  return parsed ? ctx.profiles.findByUid(ctx.core.sql, parsed.uid) : null;
}

export async function grantConsent(ctx: PosContext, customerId: string, merchantUid: string): Promise<{ ok: true; merchantId: string } | PosFailure> {
  const merchant = await profileByUid(ctx, merchantUid);
  if (!merchant || merchant.isIndividual) return invalid('merchant_uid', 'must name a business');
  if (merchant.id === customerId) return invalid('merchant_uid', 'must name another profile');
  await store.upsertConsent(ctx.core.sql, customerId, merchant.id, ctx.core.clock.now());
  return { ok: true, merchantId: merchant.id };
}

export async function revokeConsent(ctx: PosContext, customerId: string, merchantUid: string): Promise<{ ok: true; revoked: boolean } | PosFailure> {
  const merchant = await profileByUid(ctx, merchantUid);
  if (!merchant) return invalid('merchant_uid', 'no profile has this UID');
  return { ok: true, revoked: await store.revokeConsent(ctx.core.sql, customerId, merchant.id, ctx.core.clock.now()) };
}

export async function consents(ctx: PosContext, customerId: string): Promise<{ merchant_id: string; granted: string }[]> {
  const rows = await store.selectConsents(ctx.core.sql, customerId, pullConsentsListMax);
  return rows.map((row) => ({ merchant_id: row.merchant_id, granted: row.granted_at.toISOString() }));
}
