// Creating a profile inside the caller's command: its row, its confirmed UIDs or manager, a device,
// and its wallet actor (kind 'wallet', id = profile id) in the same command.
import type { Unit } from '../actors/command.ts';
import { wallet } from './machine.ts';
import type { Address } from './records.ts';
import * as store from './store.ts';
import type { AddressRow, NewProfileRow } from './store.ts';

export interface CreateIndividualInput {
  firstName: string;
  lastName: string;
  site: string;
  /** Canonical UIDs, e.g. email:a@b.com, phone:+15555550100. */
  confirmedUids: string[];
  /** A canonical UID someone typed and no one proved (a bill's email): a claim the owner proves later, see claims.ts. */
  claimedUid?: string | null;
  passwordHash?: string | null;
  businessName?: string | null;
  deviceUuid?: string | null;
  deviceName?: string | null;
  phone?: string | null;
  home?: Address | null;
  acceptedPolicy?: boolean;
  weeklyOffers?: boolean;
}

export interface CreateBusinessInput {
  site: string;
  businessName: string;
  managerProfileId: string | null;
  dba?: string | null;
  webSite?: string | null;
  descriptionHtml?: string | null;
  business: Address;
  mail: Address;
  phone?: string | null;
  phonePublic?: boolean;
}

/** An individual's title: first and last name. */
export function individualTitle(firstName: string, lastName: string): string {
  return `${firstName} ${lastName}`.trim();
}

function cleanAddress(address: Address | null | undefined): AddressRow | null {
  if (!address) return null;
  const cleaned: AddressRow = {};
  for (const [key, value] of Object.entries(address)) if (value !== undefined) (cleaned as Record<string, unknown>)[key] = value;
  return cleaned;
}

/** Callers check that the UIDs are free first; one taken since is a fault (a 500), not an answer. */
export async function insertConfirmedUidsIn(unit: Unit, profileId: string, uids: string[]): Promise<void> {
  for (const uid of uids) {
    if (!(await store.insertUid(unit.tx, profileId, uid, unit.now))) throw new Error(`UID ${uid} belongs to another profile`);
  }
}

export async function createIndividualIn(unit: Unit, input: CreateIndividualInput): Promise<{ profileId: string }> {
  const profileId = await unit.newShortId('profile');
  await store.insertProfile(unit.tx, individualRow(profileId, input), unit.now);
  await insertConfirmedUidsIn(unit, profileId, input.confirmedUids);
  // A claim taken on the site since the caller looked leaves this profile without one.
  if (input.claimedUid) await store.insertClaim(unit.tx, profileId, input.site, input.claimedUid, unit.now);
  if (input.deviceUuid) await store.upsertDevice(unit.tx, profileId, input.deviceUuid, input.deviceName ?? null, unit.now);
  unit.create(wallet, profileId, { profileId, isIndividual: true, createdAt: unit.now.toISOString() });
  return { profileId };
}

function individualRow(profileId: string, input: CreateIndividualInput): NewProfileRow {
  const firstName = input.firstName.trim();
  const lastName = input.lastName.trim();
  return {
    id: profileId,
    is_individual: true,
    first_name: firstName,
    last_name: lastName,
    title: individualTitle(firstName, lastName),
    business_name: input.businessName ?? null,
    dba: null,
    web_site: null,
    description_html: null,
    username: null,
    site: input.site,
    password_hash: input.passwordHash ?? null,
    phone: input.phone ?? '',
    phone_public: false,
    business_address: null,
    mail_address: null,
    home_address: cleanAddress(input.home),
    preferred_currency: '',
    support_paycode: false,
    accepted_policy: input.acceptedPolicy ?? false,
    weekly_offers: input.weeklyOffers ?? true,
  };
}

export async function createBusinessIn(unit: Unit, input: CreateBusinessInput): Promise<{ profileId: string }> {
  const profileId = await unit.newShortId('profile');
  await store.insertProfile(unit.tx, businessRow(profileId, input), unit.now);
  if (input.managerProfileId) await store.insertManager(unit.tx, profileId, input.managerProfileId, unit.now);
  unit.create(wallet, profileId, { profileId, isIndividual: false, createdAt: unit.now.toISOString() });
  return { profileId };
}

function businessRow(profileId: string, input: CreateBusinessInput): NewProfileRow {
  return {
    id: profileId,
    is_individual: false,
    first_name: '',
    last_name: '',
    title: input.businessName.trim(),
    business_name: input.businessName.trim(),
    dba: input.dba ?? null,
    web_site: input.webSite ?? null,
    description_html: input.descriptionHtml ?? null,
    username: null,
    site: input.site,
    password_hash: null,
    phone: input.phone ?? '',
    phone_public: input.phonePublic ?? false,
    business_address: cleanAddress(input.business),
    mail_address: cleanAddress(input.mail),
    home_address: null,
    preferred_currency: '',
    support_paycode: false,
    accepted_policy: false,
    weekly_offers: false,
  };
}
