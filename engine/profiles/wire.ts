// A profile on the wire: its URL and image URLs, the public Profile (supplement 2.4), and the
// ProfileDetail (2.5) with the holdings and accounts other domains provide.
import type { Queryable } from '../storage/database.ts';
import type { ProfilesContext } from './context.ts';
import { getProfile, type Address, type ProfileRecord } from './records.ts';
import * as store from './store.ts';

/** One line for the public `address`: line1, line2, suite, city, state zip, country. */
export function formatAddress(address: Address): string {
  const stateZip = [address.state, address.zip].filter(Boolean).join(' ');
  return [address.line1, address.line2, address.suite, address.city, stateZip, address.country].filter((part) => part && part.length > 0).join(', ');
}

export function profileUrl(ctx: ProfilesContext, profileId: string): string {
  return `${ctx.baseUrl}/p/${profileId}/`;
}

/** image24/48/73 URLs (with the deprecated aliases image25/50), or nulls without an image. */
export function imageUrls(ctx: ProfilesContext, record: ProfileRecord): Record<'image24' | 'image25' | 'image48' | 'image50' | 'image73', string | null> {
  const url = (sizePx: number) => (record.imageVersion === null ? null : `${ctx.baseUrl}/image/profile/${record.id}/${sizePx}?v=${record.imageVersion}`);
  return { image24: url(24), image25: url(24), image48: url(48), image50: url(48), image73: url(73) };
}

export function toPublic(ctx: ProfilesContext, record: ProfileRecord): Record<string, unknown> {
  const publicAddress = record.businessAddress && record.businessAddress.public ? record.businessAddress : null;
  return {
    id: record.id,
    title: record.title,
    username: record.username,
    is_individual: record.isIndividual,
    first_name: record.firstName,
    last_name: record.lastName,
    url: profileUrl(ctx, record.id),
    service_uid: `service:${record.id}`,
    ...imageUrls(ctx, record),
    image125: null,
    image250w: null,
    address: publicAddress ? formatAddress(publicAddress) : '',
    address_data: publicAddress ? { ...publicAddress } : null,
    latitude: record.location?.latitude ?? '',
    longitude: record.location?.longitude ?? '',
    phone: !record.isIndividual && record.phonePublic ? record.phone : '',
    preferred_currency: record.preferredCurrency,
    accepted_national_currencies: [],
    unsupported_national_currencies: [],
    chain_id: null,
    support_paycode: record.supportPaycode,
  };
}

/**
 * GET /me: the public Profile and two legacy aliases old clients read (supplement 2.4: an early
 * OAuth demo shows `display_name` and `photo50`): the title and the 48 px image.
 */
export function toMe(ctx: ProfilesContext, record: ProfileRecord): Record<string, unknown> {
  const body = toPublic(ctx, record);
  return { ...body, display_name: body.title, photo50: body.image48 };
}

export async function detail(ctx: ProfilesContext, db: Queryable, profileId: string): Promise<Record<string, unknown>> {
  // Independent reads, sent together: postgres.js pipelines them.
  const [record, holdings, uids, accounts] = await Promise.all([
    getProfile(db, profileId),
    ctx.holdingsProvider(db, profileId),
    store.selectUids(db, profileId),
    ctx.accountsProvider(db, profileId),
  ]);
  if (!record) throw new Error(`profile ${profileId} does not exist`);
  return {
    ...toPublic(ctx, record),
    holdings,
    confirmed_uids: uids.map((uid) => ({ uid })),
    accounts,
    service_uid: `service:${record.id}`,
  };
}
