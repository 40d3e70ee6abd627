// Reading offers: one offer with its loop links, the offers a caller manages, and the operators'
// list. Searching (GET /o/find) is search.ts.
import { offersListMax } from '../limits.ts';
import type { OffersContext } from './context.ts';
import { offerFailure } from './errors.ts';
import * as store from './store.ts';
import type { OfferCaller, OfferResult } from './types.ts';
import { loopLinks, offerJson } from './views.ts';

type Json = Record<string, unknown>;

export async function info(ctx: OffersContext, offerId: string): Promise<OfferResult<{ offer: Json; loopLinks: Json }>> {
  const row = /^\d{10}$/.test(offerId) ? await store.selectOffer(ctx.sql, offerId) : null;
  if (!row) return offerFailure('offer_not_found');
  return { ok: true, offer: offerJson(row), loopLinks: await loopLinks(ctx.sql, [row], false, ctx.publicUrl()) };
}

export async function list(ctx: OffersContext, caller: OfferCaller): Promise<{ offers: Json[]; loopLinks: Json }> {
  const designIds = caller.permissions.has('edit_design') ? await store.selectEditableDesignIds(ctx.sql, caller.profileId) : [];
  const rows = await store.selectManagedOffers(ctx.sql, caller.profileId, designIds, offersListMax);
  return { offers: rows.map((row) => offerJson(row)), loopLinks: await loopLinks(ctx.sql, rows, true, ctx.publicUrl()) };
}

export async function adminList(ctx: OffersContext, filter: { profileId: string | null; state: 'open' | 'closed' | null }): Promise<Json[]> {
  return (await store.selectAllOffers(ctx.sql, filter, offersListMax)).map((row) => offerJson(row));
}
