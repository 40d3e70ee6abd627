// SQL of offers and their acceptances (migration 0900). The offer actor holds open/closed; the
// row mirrors it for queries. Stock falls only through takeStock's conditional update.
import type { Queryable, TransactionSql } from '../storage/database.ts';

export type PaymentType = 'free' | 'funded' | 'paycard' | 'service';

export interface OfferOption {
  option_id: string;
  payment_type: PaymentType;
  /** Minor units per unit of quantity, as a string (jsonb keeps no bigint). */
  price: string;
}

export interface OfferRow {
  id: string;
  profile_id: string;
  created_by: string;
  design_id: string | null;
  plan_id: string | null;
  currency: string;
  amount: bigint;
  title: string;
  description: string;
  banner: string | null;
  metadata_image: string | null;
  metadata_description: string;
  require_confirmation: boolean;
  show_limit: number;
  quantity: number;
  remaining: number;
  options: OfferOption[];
  chain_id: string | null;
  latitude: string | null;
  longitude: string | null;
  starts_at: Date | null;
  expires_at: Date | null;
  state: 'open' | 'closed';
  /** Made or edited by a closed-loop token: accepts leave the reserve owed (migration 0910). */
  reserve_owed: boolean;
  created_at: Date;
  updated_at: Date;
}

export type NewOffer = Omit<OfferRow, 'created_at' | 'updated_at' | 'state' | 'remaining'>;

/** The columns an edit may change (quantity moves remaining by the same amount). */
export type OfferChanges = Partial<Pick<OfferRow,
  | 'title' | 'description' | 'banner' | 'metadata_image' | 'metadata_description' | 'require_confirmation' | 'show_limit' | 'options' | 'chain_id'
  | 'latitude' | 'longitude' | 'starts_at' | 'expires_at' | 'amount' | 'reserve_owed'>> & { quantity?: number };

const offerColumns = `id, profile_id, created_by, design_id, plan_id, currency, amount, title, description, banner, metadata_image, metadata_description,
  require_confirmation, show_limit, quantity, remaining, options, chain_id, latitude::text as latitude, longitude::text as longitude, starts_at, expires_at,
  state, reserve_owed, created_at, updated_at`;

export async function insertOffer(tx: TransactionSql, offer: NewOffer, at: Date): Promise<void> {
  await tx`
    insert into offers (id, profile_id, created_by, design_id, plan_id, currency, amount, title, description, banner, metadata_image, metadata_description,
      require_confirmation, show_limit, quantity, remaining, options, chain_id, latitude, longitude, starts_at, expires_at, state, reserve_owed, created_at, updated_at)
    values (${offer.id}, ${offer.profile_id}, ${offer.created_by}, ${offer.design_id}, ${offer.plan_id}, ${offer.currency}, ${offer.amount}, ${offer.title},
      ${offer.description}, ${offer.banner}, ${offer.metadata_image}, ${offer.metadata_description}, ${offer.require_confirmation}, ${offer.show_limit},
      ${offer.quantity}, ${offer.quantity}, ${tx.json(offer.options as never)}, ${offer.chain_id}, ${offer.latitude}, ${offer.longitude}, ${offer.starts_at},
      ${offer.expires_at}, 'open', ${offer.reserve_owed}, ${at}, ${at})`;
}

export async function selectOffer(db: Queryable, offerId: string): Promise<OfferRow | null> {
  const rows = await db.unsafe<OfferRow[]>(`select ${offerColumns} from offers where id = $1`, [offerId]);
  return rows[0] ?? null;
}

export async function selectOffersByIds(db: Queryable, offerIds: readonly string[]): Promise<OfferRow[]> {
  if (offerIds.length === 0) return [];
  return db.unsafe<OfferRow[]>(`select ${offerColumns} from offers where id = any($1::text[])`, [offerIds as string[]]);
}

/**
 * Applies an edit. A new quantity moves remaining by the same difference; the update matches
 * nothing (false) when that would leave fewer than none in stock, so a concurrent accept and an
 * edit never oversell.
 */
export async function updateOffer(tx: TransactionSql, offerId: string, changes: OfferChanges, at: Date): Promise<boolean> {
  const { quantity, options, ...columns } = changes;
  const set: Record<string, unknown> = { ...columns, updated_at: at };
  if (options !== undefined) set.options = tx.json(options as never);
  const rows = quantity === undefined
    ? await tx`update offers set ${tx(set)} where id = ${offerId} returning id`
    : await tx`
        update offers set ${tx(set)}, remaining = remaining + (${quantity}::int - quantity), quantity = ${quantity}
        where id = ${offerId} and remaining + (${quantity}::int - quantity) >= 0 returning id`;
  return rows.length === 1;
}

export async function closeOffer(tx: TransactionSql, offerId: string, at: Date): Promise<void> {
  const result = await tx`update offers set state = 'closed', updated_at = ${at} where id = ${offerId} and state = 'open'`;
  if (result.count !== 1) throw new Error(`offer ${offerId} was not open when closed`);
}

/** Takes stock for an accept; null when the offer is closed or has fewer than `quantity` left. */
export async function takeStock(tx: TransactionSql, offerId: string, quantity: number, at: Date): Promise<number | null> {
  const rows = await tx<{ remaining: number }[]>`
    update offers set remaining = remaining - ${quantity}, updated_at = ${at}
    where id = ${offerId} and state = 'open' and remaining >= ${quantity} returning remaining`;
  return rows[0]?.remaining ?? null;
}

/** Puts back the stock a canceled accept held (never above the offer's quantity). */
export async function returnStock(tx: TransactionSql, offerId: string, quantity: number, at: Date): Promise<void> {
  await tx`update offers set remaining = least(quantity, remaining + ${quantity}), updated_at = ${at} where id = ${offerId}`;
}

/** Offers a profile manages: its own and those paying in designs it may edit; newest first. */
export async function selectManagedOffers(db: Queryable, profileId: string, designIds: readonly string[], limit: number): Promise<OfferRow[]> {
  return db.unsafe<OfferRow[]>(
    `select ${offerColumns} from offers where profile_id = $1 or design_id = any($2::text[]) order by created_at desc, id desc limit $3`,
    [profileId, designIds as string[], limit],
  );
}

export async function selectAllOffers(db: Queryable, filter: { profileId: string | null; state: 'open' | 'closed' | null }, limit: number): Promise<OfferRow[]> {
  return db.unsafe<OfferRow[]>(
    `select ${offerColumns} from offers where ($1::text is null or profile_id = $1) and ($2::text is null or state = $2)
     order by created_at desc, id desc limit $3`,
    [filter.profileId, filter.state, limit],
  );
}

/** Designs on which the profile holds edit_design. */
export async function selectEditableDesignIds(db: Queryable, profileId: string): Promise<string[]> {
  const rows = await db<{ design_id: string }[]>`select design_id from design_grants where profile_id = ${profileId} and permission = 'edit_design'`;
  return rows.map((row) => row.design_id);
}

export interface LoopLinkRow {
  id: string;
  title: string;
  issuer_id: string;
}

export async function selectLoopTitles(db: Queryable, designIds: readonly string[]): Promise<LoopLinkRow[]> {
  if (designIds.length === 0) return [];
  return db<LoopLinkRow[]>`select id, title, issuer_id from designs where id = any(${designIds as string[]}::text[])`;
}

export interface BusinessRow {
  id: string;
  title: string;
  latitude: string | null;
  longitude: string | null;
}

export async function selectBusinesses(db: Queryable, profileIds: readonly string[]): Promise<BusinessRow[]> {
  if (profileIds.length === 0) return [];
  return db<BusinessRow[]>`
    select id, title, latitude::text as latitude, longitude::text as longitude from profiles where id = any(${profileIds as string[]}::text[])`;
}

export interface BoundingBox {
  minLatitude: string;
  maxLatitude: string;
  /** Null when the box spans every longitude (near a pole, or wider than the globe). */
  longitudeRanges: { min: string; max: string }[] | null;
}

export interface FindQuery {
  now: Date;
  text: string | null;
  point: { latitude: string; longitude: string } | null;
  maxDistanceMetres: number | null;
  box: BoundingBox | null;
  profileIds: readonly string[] | null;
  chainIds: readonly string[] | null;
  excludeOfferIds: readonly string[];
  includeRequireConfirmation: boolean;
  /** Businesses per page, and businesses skipped. */
  limit: number;
  offset: number;
  /** Offers shown per business, best first. */
  offersPerBusiness: number;
}

export interface FoundOffer {
  id: string;
  profile_id: string;
  position: number;
  distance: number | null;
  rank: number | null;
}

/** The mean earth radius (IUGG), in metres, that the haversine distance uses. */
export const earthRadiusMetres = 6_371_008.8;

/**
 * Offers matching the query, for the page of businesses `offset .. offset + limit` (one more is
 * read to tell `more`), ordered by distance, else text relevance, else title. The text match uses
 * the GIN index on the search vector; a distance limit the btree on (latitude, longitude) through
 * the bounding box; haversine then keeps the offers truly within reach.
 */
export async function findOffers(db: Queryable, query: FindQuery): Promise<FoundOffer[]> {
  return findStatement(db, query, false) as unknown as Promise<FoundOffer[]>;
}

function findStatement(db: Queryable, query: FindQuery, explain: boolean) {
  const tsquery = query.text === null ? null : db`websearch_to_tsquery('english', ${query.text})`;
  const point = query.point;
  const distance = point
    ? db`(2 * ${earthRadiusMetres}::float8 * asin(least(1::float8, sqrt(
        power(sin(radians(o.latitude::float8 - ${point.latitude}::float8) / 2), 2)
        + cos(radians(${point.latitude}::float8)) * cos(radians(o.latitude::float8)) * power(sin(radians(o.longitude::float8 - ${point.longitude}::float8) / 2), 2)))))`
    : db`null::float8`;
  const rank = tsquery ? db`ts_rank(o.search, ${tsquery})` : db`null::float4`;
  const box = query.box;
  const longitudeClause = box?.longitudeRanges
    ? box.longitudeRanges.length === 1
      ? db`and o.longitude between ${box.longitudeRanges[0].min}::numeric and ${box.longitudeRanges[0].max}::numeric`
      : db`and (o.longitude between ${box.longitudeRanges[0].min}::numeric and ${box.longitudeRanges[0].max}::numeric
             or o.longitude between ${box.longitudeRanges[1].min}::numeric and ${box.longitudeRanges[1].max}::numeric)`
    : db``;
  const order = point ? db`distance asc` : tsquery ? db`rank desc` : db`title asc`;
  const businessOrder = point ? db`min(distance) asc` : tsquery ? db`max(rank) desc` : db`min(title) asc`;
  return db`
    ${explain ? db`explain` : db``} with near as (
      select o.id, o.profile_id, lower(o.title) as title, ${distance} as distance, ${rank} as rank
      from offers o
      where o.state = 'open' and o.remaining > 0
        and (o.starts_at is null or o.starts_at <= ${query.now}) and (o.expires_at is null or o.expires_at > ${query.now})
        ${tsquery ? db`and o.search @@ ${tsquery}` : db``}
        ${point ? db`and o.latitude is not null` : db``}
        ${box ? db`and o.latitude between ${box.minLatitude}::numeric and ${box.maxLatitude}::numeric ${longitudeClause}` : db``}
        ${query.profileIds ? db`and o.profile_id = any(${query.profileIds as string[]}::text[])` : db``}
        ${query.chainIds ? db`and o.chain_id = any(${query.chainIds as string[]}::text[])` : db``}
        ${query.excludeOfferIds.length > 0 ? db`and not (o.id = any(${query.excludeOfferIds as string[]}::text[]))` : db``}
        ${query.includeRequireConfirmation ? db`` : db`and not o.require_confirmation`}
    ),
    reach as (
      select * from near ${query.maxDistanceMetres !== null ? db`where distance <= ${query.maxDistanceMetres}::float8` : db``}
    ),
    page as (
      select profile_id, row_number() over (order by ${businessOrder}, profile_id) as position
      from reach group by profile_id
      order by position limit ${query.limit + 1} offset ${query.offset}
    )
    select id, profile_id, position, distance, rank from (
      select reach.id, reach.profile_id, page.position::int as position, reach.distance, reach.rank, reach.title,
        row_number() over (partition by reach.profile_id order by ${order}, reach.id) as within
      from reach join page using (profile_id)
    ) kept
    where within <= ${query.offersPerBusiness}
    order by position, ${order}, id`;
}

export interface AcceptanceRow {
  id: string;
  offer_id: string;
  accepter_id: string;
  option_id: string;
  quantity: number;
  price: bigint;
  transfer_id: string;
  referrer_id: string | null;
  dedup_id: string | null;
  /** The digest of the request that claimed the dedup_id (engine/transfers/idempotency.ts); null without one, or claimed before migration 1050. */
  request_digest: string | null;
  email: string | null;
  state: 'confirming' | 'completed' | 'canceled';
  created_at: Date;
}

export type NewAcceptance = Omit<AcceptanceRow, 'created_at' | 'state'> & { state: AcceptanceRow['state']; confirmDigest: string | null };

/** False when the accepter already used the dedup_id (the unique index decides). */
export async function insertAcceptance(tx: TransactionSql, row: NewAcceptance, at: Date): Promise<boolean> {
  const rows = await tx`
    insert into offer_acceptances (id, offer_id, accepter_id, option_id, quantity, price, transfer_id, referrer_id, dedup_id, request_digest, email, confirm_digest,
      state, created_at, updated_at)
    values (${row.id}, ${row.offer_id}, ${row.accepter_id}, ${row.option_id}, ${row.quantity}, ${row.price}, ${row.transfer_id}, ${row.referrer_id},
      ${row.dedup_id}, ${row.request_digest}, ${row.email}, ${row.confirmDigest}, ${row.state}, ${at}, ${at})
    on conflict (accepter_id, dedup_id) where dedup_id is not null do nothing returning id`;
  return rows.length === 1;
}

const acceptanceColumns = 'id, offer_id, accepter_id, option_id, quantity, price, transfer_id, referrer_id, dedup_id, request_digest, email, state, created_at';

export async function selectAcceptanceByDedup(db: Queryable, accepterId: string, dedupId: string): Promise<AcceptanceRow | null> {
  const rows = await db.unsafe<AcceptanceRow[]>(`select ${acceptanceColumns} from offer_acceptances where accepter_id = $1 and dedup_id = $2`, [accepterId, dedupId]);
  return rows[0] ?? null;
}

export async function selectAcceptanceByDigest(db: Queryable, digest: string): Promise<AcceptanceRow | null> {
  const rows = await db.unsafe<AcceptanceRow[]>(`select ${acceptanceColumns} from offer_acceptances where confirm_digest = $1`, [digest]);
  return rows[0] ?? null;
}

export async function selectAcceptanceForUpdate(tx: TransactionSql, acceptanceId: string): Promise<AcceptanceRow | null> {
  const rows = await tx.unsafe<AcceptanceRow[]>(`select ${acceptanceColumns} from offer_acceptances where id = $1 for update`, [acceptanceId]);
  return rows[0] ?? null;
}

export async function setAcceptanceState(tx: TransactionSql, acceptanceId: string, from: AcceptanceRow['state'], to: AcceptanceRow['state'], at: Date): Promise<void> {
  const result = await tx`update offer_acceptances set state = ${to}, updated_at = ${at} where id = ${acceptanceId} and state = ${from}`;
  if (result.count !== 1) throw new Error(`acceptance ${acceptanceId} was not ${from}`);
}

/** Units the accepter already holds or waits for, of this offer. */
export async function acceptedQuantity(db: Queryable, offerId: string, accepterId: string): Promise<number> {
  const rows = await db<{ total: number }[]>`
    select coalesce(sum(quantity), 0)::int as total from offer_acceptances where offer_id = ${offerId} and accepter_id = ${accepterId} and state <> 'canceled'`;
  return rows[0].total;
}

/** The query plan of a find (tests and the benchmark show the indexes it uses). */
export async function explainFind(db: Queryable, query: FindQuery): Promise<string> {
  const rows = (await findStatement(db, query, true)) as unknown as Record<string, string>[];
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}
