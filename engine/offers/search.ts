// GET /o/find: open offers by text relevance (GIN full-text index) and distance (a bounding box on
// the btree (latitude, longitude), then haversine), with the filters, paged by businesses.
import type { Core } from '../core.ts';
import { offerFindOffersPerBusinessMax } from '../limits.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { invalid, type OfferFailure } from './errors.ts';
import * as store from './store.ts';
import type { BoundingBox } from './store.ts';
import { loopLinks, offerJson } from './views.ts';

type Json = Record<string, unknown>;

export interface FindInput {
  text?: string;
  profileIds?: string[];
  chainIds?: string[];
  excludeOfferIds?: string[];
  latitude?: string;
  longitude?: string;
  maxDistanceMetres?: number;
  ifRequireConfirmation?: 'include' | 'exclude' | 'default' | '';
  limit: number;
  offset: number;
  /** The calling member, when a token came with the request. */
  viewerId?: string;
}

export type FindResult = { ok: true; profiles: Json[]; offers: Json[]; loopLinks: Json; more: boolean } | OfferFailure;

/** Metres per degree of latitude on the sphere the haversine distance uses. */
const metresPerDegree = (2 * Math.PI * store.earthRadiusMetres) / 360;

/**
 * A box around the point that holds every place within `metres` (with a small margin), for the
 * index prefilter; haversine then decides. Longitude spans widen toward the poles; a box that
 * reaches a pole spans every longitude, and one that crosses the antimeridian becomes two ranges.
 */
export function boundingBox(latitude: number, longitude: number, metres: number): BoundingBox {
  const degrees = (metres / metresPerDegree) * 1.001 + 0.000_001;
  const minLatitude = latitude - degrees;
  const maxLatitude = latitude + degrees;
  const fixed = (value: number) => value.toFixed(6);
  if (minLatitude <= -90 || maxLatitude >= 90) {
    return { minLatitude: fixed(Math.max(-90, minLatitude)), maxLatitude: fixed(Math.min(90, maxLatitude)), longitudeRanges: null };
  }
  const widest = Math.max(Math.abs(minLatitude), Math.abs(maxLatitude));
  const span = degrees / Math.cos((widest * Math.PI) / 180);
  if (span >= 180) return { minLatitude: fixed(minLatitude), maxLatitude: fixed(maxLatitude), longitudeRanges: null };
  const west = longitude - span;
  const east = longitude + span;
  let longitudeRanges: { min: string; max: string }[];
  if (west < -180) longitudeRanges = [{ min: fixed(west + 360), max: '180' }, { min: '-180', max: fixed(east) }];
  else if (east > 180) longitudeRanges = [{ min: fixed(west), max: '180' }, { min: '-180', max: fixed(east - 360) }];
  else longitudeRanges = [{ min: fixed(west), max: fixed(east) }];
  return { minLatitude: fixed(minLatitude), maxLatitude: fixed(maxLatitude), longitudeRanges };
}

export function createOfferSearch(core: Core, dependencies: { profiles: ProfilesService; publicUrl: () => string }): { find(input: FindInput): Promise<FindResult> } {
  const { sql } = core;
  const { profiles } = dependencies;

  async function find(input: FindInput): Promise<FindResult> {
    const point = input.latitude !== undefined && input.longitude !== undefined ? { latitude: input.latitude, longitude: input.longitude } : null;
    if (input.maxDistanceMetres !== undefined && !point) return invalid('max_distance', 'needs latitude and longitude');
    let include = input.ifRequireConfirmation === 'include';
    if (input.ifRequireConfirmation === undefined || input.ifRequireConfirmation === 'default' || input.ifRequireConfirmation === '') {
      include = input.viewerId !== undefined && (await profiles.confirmedUids(sql, input.viewerId)).some((uid) => uid.startsWith('email:') || uid.startsWith('phone:'));
    }
    const query: store.FindQuery = {
      now: core.clock.now(), text: input.text?.trim() ? input.text : null, point, maxDistanceMetres: input.maxDistanceMetres ?? null,
      box: point && input.maxDistanceMetres !== undefined ? boundingBox(Number(point.latitude), Number(point.longitude), input.maxDistanceMetres) : null,
      profileIds: input.profileIds ?? null, chainIds: input.chainIds ?? null, excludeOfferIds: input.excludeOfferIds ?? [],
      includeRequireConfirmation: include, limit: input.limit, offset: input.offset, offersPerBusiness: offerFindOffersPerBusinessMax,
    };
    const found = await store.findOffers(sql, query);
    const more = found.some((row) => row.position > input.offset + input.limit);
    const kept = found.filter((row) => row.position <= input.offset + input.limit);
    const rows = new Map((await store.selectOffersByIds(sql, kept.map((row) => row.id))).map((row) => [row.id, row]));
    const businessIds = [...new Set(kept.map((row) => row.profile_id))];
    const businesses = new Map((await store.selectBusinesses(sql, businessIds)).map((row) => [row.id, row]));
    const metres = (value: number | null) => (value === null ? null : Math.round(value));
    const offers = kept.map((row) => offerJson(rows.get(row.id)!, { distance: metres(row.distance), relevance: row.rank }));
    const profileResults = businessIds.map((id) => {
      const mine = kept.filter((row) => row.profile_id === id);
      const business = businesses.get(id);
      return {
        id, profile_id: id, title: business?.title ?? '', is_individual: false, latitude: business?.latitude ?? null, longitude: business?.longitude ?? null,
        distance: metres(mine[0].distance), relevance: mine[0].rank, offer_ids: mine.map((row) => row.id),
      };
    });
    return { ok: true, profiles: profileResults, offers, loopLinks: await loopLinks(sql, [...rows.values()], false, dependencies.publicUrl()), more };
  }

  return { find };
}
