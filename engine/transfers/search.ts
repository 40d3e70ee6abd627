// GET /wallet/search: people and businesses to send to, paged with `more`.
import type { Core } from '../core.ts';
import { parseSerialNumbers } from '../ledger/allocation.ts';
import { heldNotesOf } from '../ledger/cash.ts';
import { searchQueryServiceCharsMin, serialNumbersMax } from '../limits.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { parseLogin } from '../uids.ts';
import { selectSearchIds } from './search-store.ts';

export interface SearchInput {
  profileId: string;
  q: string;
  uid?: string;
  limit: number;
  offset: number;
  serialNumbers?: string;
  filters: string[];
  latitude?: number;
  longitude?: number;
}

/** A rejected search names the field and why. */
export interface SearchRejection {
  ok: false;
  field: 'q' | 'uid' | 'serial_numbers';
  message: string;
}

export async function searchProfiles(core: Core, profiles: ProfilesService, input: SearchInput): Promise<{ ok: true; results: Record<string, unknown>[]; more: boolean } | SearchRejection> {
  const { sql } = core;
  const invalid = (field: SearchRejection['field'], message: string): SearchRejection => ({ ok: false, field, message });
  const caller = await profiles.get(sql, input.profileId);
  if (!caller) throw new Error(`caller ${input.profileId} has no profile`);
  if (input.uid !== undefined) {
    if (input.uid.startsWith('email:')) return invalid('uid', 'email UIDs are not accepted');
    const confirmed = await profiles.confirmedUids(sql, input.profileId);
    if (input.uid !== `service:${input.profileId}` && !confirmed.includes(input.uid)) return invalid('uid', 'must be one of the profile\'s confirmed UIDs');
  }
  const text = input.q.trim();
  const parsed = text.includes(':') || text.includes('@') ? parseLogin(text) : null;
  if (parsed?.type === 'service' || /^service:/i.test(text)) {
    if (text.replace(/\s/g, '').length < searchQueryServiceCharsMin) return invalid('q', `at least ${searchQueryServiceCharsMin} characters`);
  }
  if (text.replace(/\s/g, '').length === 0) return invalid('q', 'is required');
  let businessIssuers: string[] | null = null;
  if (input.serialNumbers !== undefined) {
    const serials = parseSerialNumbers(input.serialNumbers);
    if (!serials.ok || (serials.value?.length ?? 0) > serialNumbersMax) return invalid('serial_numbers', 'must be serial numbers');
    if (serials.value) {
      const notes = await heldNotesOf(sql, input.profileId, serials.value);
      const brand = notes.filter((note) => note.loopId !== '0');
      if (brand.length > 0) businessIssuers = [...new Set(brand.map((note) => note.issuerId))];
    }
  }
  const kind = input.filters.includes('business') && !input.filters.includes('individual') ? 'business' : input.filters.includes('individual') && !input.filters.includes('business') ? 'individual' : null;
  const ids = await selectSearchIds(sql, {
    site: caller.site, text, exactUid: parsed?.uid ?? null, excludeId: input.filters.includes('exclude_self') ? input.profileId : null, kind, businessIssuers,
    latitude: input.latitude ?? null, longitude: input.longitude ?? null, offset: input.offset, limit: input.limit,
  });
  const more = ids.length > input.limit;
  const records = await Promise.all(ids.slice(0, input.limit).map((id) => profiles.get(sql, id)));
  const results = records.filter((record) => record !== null).map((record) => ({ ...profiles.toPublic(record!), uid: `service:${record!.id}` }));
  return { ok: true, results, more };
}
