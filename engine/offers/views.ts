// The wire shapes of offers: OfferDetail (also the items of /o/list and /o/find) and loop_links.
import { formatMinor } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';
import type { OfferOption, OfferRow } from './store.ts';

type Json = Record<string, unknown>;

function optionJson(option: OfferOption, currency: string): Json {
  // The spec names the key option_id; a client sketch read `id` (supplement 2.13): both are sent.
  return { option_id: option.option_id, id: option.option_id, payment_type: option.payment_type, price: formatMinor(BigInt(option.price), currency) };
}

export function offerJson(row: OfferRow, extra: Json = {}): Json {
  const loopId = row.design_id ?? '0';
  const amount = formatMinor(row.amount, row.currency);
  return {
    id: row.id, offer_id: row.id, profile_id: row.profile_id, title: row.title, description: row.description, amount, currency: row.currency,
    loop_id: loopId, distribution_plan_id: row.plan_id, base_loops: [{ loop_id: loopId, amount }],
    options: row.options.map((option) => optionJson(option, row.currency)), show_limit: row.show_limit, quantity: row.quantity,
    purchases_remain: row.remaining, require_confirmation: row.require_confirmation, banner: row.banner, metadata_image: row.metadata_image,
    metadata_description: row.metadata_description, chain_id: row.chain_id, latitude: row.latitude, longitude: row.longitude,
    starts: row.starts_at?.toISOString() ?? null, expires: row.expires_at?.toISOString() ?? null, state: row.state, closed: row.state === 'closed',
    created: row.created_at.toISOString(), modified: row.updated_at.toISOString(), ...extra,
  };
}

/** loop_id to {title, thumbnail} (and manage_url for the managers' list) of the loops the offers pay in. */
export async function loopLinks(db: Queryable, rows: readonly OfferRow[], withManage: boolean, publicUrl: string): Promise<Json> {
  const designIds = [...new Set(rows.flatMap((row) => (row.design_id ? [row.design_id] : [])))];
  const links: Json = {};
  if (rows.some((row) => row.design_id === null)) links['0'] = { title: 'Cash', thumbnail: null, ...(withManage ? { manage_url: null } : {}) };
  for (const design of await store.selectLoopTitles(db, designIds)) {
    links[design.id] = { title: design.title, thumbnail: null, ...(withManage ? { manage_url: `${publicUrl}/design/${design.id}` } : {}) };
  }
  return links;
}
