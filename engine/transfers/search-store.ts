// SQL for GET /wallet/search: profiles of the caller's site by title, username or exact UID,
// optionally only businesses or individuals, closest businesses first when a location is given.
import type { Queryable } from '../storage/database.ts';

interface SearchQuery {
  site: string;
  text: string;
  exactUid: string | null;
  excludeId: string | null;
  kind: 'business' | 'individual' | null;
  /** Businesses must be among these issuers (brand cash the caller picked by serial number). */
  businessIssuers: string[] | null;
  latitude: number | null;
  longitude: number | null;
  offset: number;
  limit: number;
}

export async function selectSearchIds(sql: Queryable, query: SearchQuery): Promise<string[]> {
  const pattern = `%${query.text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
  const kind = query.kind === null ? sql`` : sql`and p.is_individual = ${query.kind === 'individual'}`;
  const exclude = query.excludeId === null ? sql`` : sql`and p.id <> ${query.excludeId}`;
  const issuers = query.businessIssuers === null ? sql`` : sql`and (p.is_individual or p.id = any(${query.businessIssuers}::text[]))`;
  // Coordinates are the operator-set profile location, which only businesses have (a CHECK keeps
  // it off individuals). The key is the haversine term, which grows with great-circle distance,
  // so it orders correctly across the antimeridian and at any range; profiles without a location
  // get null and sort after every located one.
  const distance = query.latitude === null || query.longitude === null
    ? sql`null::float8`
    : sql`power(sin(radians(p.latitude::float8 - ${query.latitude}::float8) / 2), 2)
        + cos(radians(${query.latitude}::float8)) * cos(radians(p.latitude::float8))
          * power(sin(radians(p.longitude::float8 - ${query.longitude}::float8) / 2), 2)`;
  const rows = await sql<{ id: string }[]>`
    select p.id from profiles p
    where p.site = ${query.site}
      and (p.title ilike ${pattern} or p.username ilike ${pattern} or p.id = ${query.exactUid?.replace(/^service:/, '') ?? ''}
        or exists (select 1 from profile_uids u where u.profile_id = p.id and u.uid = ${query.exactUid ?? ''}))
      ${kind} ${exclude} ${issuers}
    order by ${distance} nulls last, p.title, p.id
    offset ${query.offset} limit ${query.limit + 1}`;
  return rows.map((row) => row.id);
}
