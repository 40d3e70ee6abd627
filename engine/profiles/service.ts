// Profiles (individual and business), their UIDs, managers, features and wallets. A wallet is an
// actor (kind 'wallet', id = profile id) created in the same command as its profile.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import type { Queryable } from '../storage/database.ts';
import type { ProfileAccessError } from './errors.ts';
import { storedLocation, type Location } from './location.ts';
import { wallet } from './machine.ts';
import * as store from './store.ts';
import type { AddressRow, ProfileRow } from './store.ts';

export const profileFeatureNames = ['design_gl', 'bill', 'pull_payment', 'issue_open_loop'] as const;
export type ProfileFeature = (typeof profileFeatureNames)[number];

/** An address as stored and as given on the wire (the same shape). */
export type Address = store.AddressRow;

export interface ProfileRecord {
  id: string;
  isIndividual: boolean;
  firstName: string;
  lastName: string;
  title: string;
  username: string | null;
  site: string;
  passwordHash: string | null;
  businessName: string | null;
  dba: string | null;
  webSite: string | null;
  descriptionHtml: string | null;
  phone: string;
  phonePublic: boolean;
  businessAddress: Address | null;
  mailAddress: Address | null;
  homeAddress: Address | null;
  preferredCurrency: string;
  supportPaycode: boolean;
  /** Bumped on each image upload; null when the profile has no image. */
  imageVersion: number | null;
  /** A business's location, set by the operator; null when unknown (always for an individual). */
  location: Location | null;
  createdAt: Date;
}

export interface CreateIndividualInput {
  firstName: string;
  lastName: string;
  site: string;
  /** Canonical UIDs, e.g. email:a@b.com, phone:+15555550100. */
  confirmedUids: string[];
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

export interface ProfileFlagsUpdate {
  supportPaycode?: boolean;
  preferredCurrency?: string;
  username?: string | null;
}

export type LocationOutcome =
  | { ok: true; profile: ProfileRecord }
  | { ok: false; error: Extract<ProfileAccessError, 'profile_not_found' | 'not_business'> };

export type ListProvider = (db: Queryable, profileId: string) => Promise<unknown[]>;

/** Operator flags set, or why not. */
export type FlagsOutcome = { ok: true } | { ok: false; error: Extract<ProfileAccessError, 'profile_not_found' | 'username_taken'> };

export interface ProfilesService {
  createIndividualIn(unit: Unit, input: CreateIndividualInput): Promise<{ profileId: string }>;
  createBusinessIn(unit: Unit, input: CreateBusinessInput): Promise<{ profileId: string }>;
  get(db: Queryable, profileId: string): Promise<ProfileRecord | null>;
  /** Finds a profile by canonical UID: service:<id>, username:<name>, email:, phone: and external types. */
  findByUid(db: Queryable, canonicalUid: string): Promise<ProfileRecord | null>;
  confirmedUids(db: Queryable, profileId: string): Promise<string[]>;
  /** Adds a confirmed UID; false when another profile holds it. */
  addConfirmedUid(db: Queryable, profileId: string, uid: string): Promise<boolean>;
  removeUid(db: Queryable, profileId: string, uid: string): Promise<boolean>;
  setPasswordHash(db: Queryable, profileId: string, hash: string | null): Promise<boolean>;
  managers(db: Queryable, businessId: string): Promise<string[]>;
  managedBy(db: Queryable, personalProfileId: string): Promise<ProfileRecord[]>;
  isManager(db: Queryable, businessId: string, personalProfileId: string): Promise<boolean>;
  addManager(db: Queryable, businessId: string, personalProfileId: string): Promise<void>;
  attachDevice(db: Queryable, profileId: string, deviceUuid: string, deviceName: string | null): Promise<void>;
  devices(db: Queryable, profileId: string): Promise<{ deviceUuid: string; deviceName: string | null }[]>;
  /** The wallet's state (active, suspended, closed), or null when there is none. */
  walletState(db: Queryable, profileId: string): Promise<string | null>;
  hasFeature(db: Queryable, profileId: string, feature: string): Promise<boolean>;
  addFeature(db: Queryable, profileId: string, feature: string): Promise<void>;
  removeFeature(db: Queryable, profileId: string, feature: string): Promise<boolean>;
  features(db: Queryable, profileId: string): Promise<string[]>;
  /** Operator flags; refused when the profile is missing or the username belongs to another profile. */
  setFlags(db: Queryable, profileId: string, flags: ProfileFlagsUpdate): Promise<FlagsOutcome>;
  /** Renames an individual (first and last name) or a business (title and dba); false when the kind does not match. */
  rename(db: Queryable, profileId: string, names: { firstName: string; lastName: string } | { title: string; dba: string | null }): Promise<boolean>;
  profileUrl(profileId: string): string;
  /** image24/48/73 URLs (with the deprecated aliases image25/50), or nulls without an image. */
  imageUrls(record: ProfileRecord): Record<'image24' | 'image25' | 'image48' | 'image50' | 'image73', string | null>;
  bumpImageVersion(db: Queryable, profileId: string): Promise<number>;
  /** Sets a business's location, or clears it with null; an individual has none (not_business). */
  setLocation(db: Queryable, profileId: string, location: Location | null): Promise<LocationOutcome>;
  /** The wire Profile (supplement 2.4). */
  toPublic(record: ProfileRecord): Record<string, unknown>;
  /** The wire ProfileDetail (supplement 2.5): Profile + holdings, confirmed_uids, accounts. */
  detail(db: Queryable, profileId: string): Promise<Record<string, unknown>>;
  registerHoldingsProvider(provider: ListProvider): void;
  registerAccountsProvider(provider: ListProvider): void;
}

function toRecord(row: ProfileRow): ProfileRecord {
  return {
    id: row.id,
    isIndividual: row.is_individual,
    firstName: row.first_name,
    lastName: row.last_name,
    title: row.title,
    username: row.username,
    site: row.site,
    passwordHash: row.password_hash,
    businessName: row.business_name,
    dba: row.dba,
    webSite: row.web_site,
    descriptionHtml: row.description_html,
    phone: row.phone,
    phonePublic: row.phone_public,
    businessAddress: row.business_address,
    mailAddress: row.mail_address,
    homeAddress: row.home_address,
    preferredCurrency: row.preferred_currency,
    supportPaycode: row.support_paycode,
    imageVersion: row.image_version,
    location: storedLocation(row.id, row.latitude, row.longitude),
    createdAt: row.created_at,
  };
}

function cleanAddress(address: Address | null | undefined): AddressRow | null {
  if (!address) return null;
  const cleaned: AddressRow = {};
  for (const [key, value] of Object.entries(address)) if (value !== undefined) (cleaned as Record<string, unknown>)[key] = value;
  return cleaned;
}

/** One line for the public `address`: line1, line2, suite, city, state zip, country. */
/** An individual's title: first and last name. */
export function individualTitle(firstName: string, lastName: string): string {
  return `${firstName} ${lastName}`.trim();
}

export function formatAddress(address: Address): string {
  const stateZip = [address.state, address.zip].filter(Boolean).join(' ');
  return [address.line1, address.line2, address.suite, address.city, stateZip, address.country].filter((part) => part && part.length > 0).join(', ');
}

const uniqueViolation = '23505';

export function createProfilesService(core: Core): ProfilesService {
  const { clock, config } = core;
  let holdingsProvider: ListProvider = async () => [];
  let accountsProvider: ListProvider = async () => [];
  const baseUrl = config.publicUrl;

  async function findByUid(db: Queryable, canonicalUid: string): Promise<ProfileRecord | null> {
    const colon = canonicalUid.indexOf(':');
    if (colon <= 0) return null;
    const type = canonicalUid.slice(0, colon);
    const value = canonicalUid.slice(colon + 1);
    let row: ProfileRow | null;
    if (type === 'service') row = /^\d{10}$/.test(value) ? await store.selectProfile(db, value) : null;
    else if (type === 'username') row = await store.selectProfileByUsername(db, value.toLowerCase());
    else row = await store.selectProfileByUid(db, canonicalUid);
    return row ? toRecord(row) : null;
  }

  const service: ProfilesService = {
    async createIndividualIn(unit, input) {
      const profileId = await unit.newShortId('profile');
      const firstName = input.firstName.trim();
      const lastName = input.lastName.trim();
      await store.insertProfile(
        unit.tx,
        {
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
        },
        unit.now,
      );
      for (const uid of input.confirmedUids) {
        // Callers check that the UIDs are free first; one taken since is a fault (a 500), not an answer.
        if (!(await store.insertUid(unit.tx, profileId, uid, unit.now))) throw new Error(`UID ${uid} belongs to another profile`);
      }
      if (input.deviceUuid) await store.upsertDevice(unit.tx, profileId, input.deviceUuid, input.deviceName ?? null, unit.now);
      unit.create(wallet, profileId, { profileId, isIndividual: true, createdAt: unit.now.toISOString() });
      return { profileId };
    },

    async createBusinessIn(unit, input) {
      const profileId = await unit.newShortId('profile');
      await store.insertProfile(
        unit.tx,
        {
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
        },
        unit.now,
      );
      if (input.managerProfileId) await store.insertManager(unit.tx, profileId, input.managerProfileId, unit.now);
      unit.create(wallet, profileId, { profileId, isIndividual: false, createdAt: unit.now.toISOString() });
      return { profileId };
    },

    async get(db, profileId) {
      if (!/^\d{10}$/.test(profileId)) return null;
      const row = await store.selectProfile(db, profileId);
      return row ? toRecord(row) : null;
    },
    findByUid,
    confirmedUids: (db, profileId) => store.selectUids(db, profileId),
    addConfirmedUid: (db, profileId, uid) => store.insertUid(db, profileId, uid, clock.now()),
    removeUid: (db, profileId, uid) => store.deleteUid(db, profileId, uid),
    setPasswordHash: (db, profileId, hash) => store.updatePasswordHash(db, profileId, hash),
    managers: (db, businessId) => store.selectManagerIds(db, businessId),
    async managedBy(db, personalProfileId) {
      return (await store.selectManagedProfiles(db, personalProfileId)).map(toRecord);
    },
    isManager: (db, businessId, personalProfileId) => store.isManager(db, businessId, personalProfileId),
    addManager: (db, businessId, personalProfileId) => store.insertManager(db, businessId, personalProfileId, clock.now()),
    attachDevice: (db, profileId, deviceUuid, deviceName) => store.upsertDevice(db, profileId, deviceUuid, deviceName, clock.now()),
    async devices(db, profileId) {
      return (await store.selectDevices(db, profileId)).map((row) => ({ deviceUuid: row.device_uuid, deviceName: row.device_name }));
    },
    walletState: (db, profileId) => store.selectWalletState(db, profileId),
    async hasFeature(db, profileId, feature) {
      return (await store.selectFeatures(db, profileId)).includes(feature);
    },
    addFeature: (db, profileId, feature) => store.insertFeature(db, profileId, feature, clock.now()),
    removeFeature: (db, profileId, feature) => store.deleteFeature(db, profileId, feature),
    features: (db, profileId) => store.selectFeatures(db, profileId),
    async setFlags(db, profileId, flags) {
      try {
        const found = await store.updateFlags(db, profileId, {
          support_paycode: flags.supportPaycode,
          preferred_currency: flags.preferredCurrency,
          username: flags.username === undefined ? undefined : flags.username === null ? null : flags.username.toLowerCase(),
        });
        return found ? { ok: true } : { ok: false, error: 'profile_not_found' };
      } catch (error) {
        if ((error as { code?: string }).code === uniqueViolation) return { ok: false, error: 'username_taken' };
        throw error;
      }
    },
    profileUrl: (profileId) => `${baseUrl}/p/${profileId}/`,
    rename(db, profileId, names) {
      return 'firstName' in names
        ? store.updateIndividualName(db, profileId, names.firstName, names.lastName, individualTitle(names.firstName, names.lastName))
        : store.updateBusinessName(db, profileId, names.title, names.dba);
    },
    imageUrls(record) {
      const url = (sizePx: number) => (record.imageVersion === null ? null : `${baseUrl}/image/profile/${record.id}/${sizePx}?v=${record.imageVersion}`);
      return { image24: url(24), image25: url(24), image48: url(48), image50: url(48), image73: url(73) };
    },
    bumpImageVersion: (db, profileId) => store.bumpImageVersion(db, profileId),

    async setLocation(db, profileId, location) {
      const record = await service.get(db, profileId);
      if (!record) return { ok: false, error: 'profile_not_found' };
      if (record.isIndividual) return { ok: false, error: 'not_business' };
      const updated = toRecord(await store.updateBusinessLocation(db, profileId, location?.latitude ?? null, location?.longitude ?? null));
      if (updated.location?.latitude !== location?.latitude || updated.location?.longitude !== location?.longitude) {
        throw new Error(`profile ${profileId} location reads back as ${JSON.stringify(updated.location)}, not ${JSON.stringify(location)}`);
      }
      return { ok: true, profile: updated };
    },

    toPublic(record) {
      const publicAddress = record.businessAddress && record.businessAddress.public ? record.businessAddress : null;
      return {
        id: record.id,
        title: record.title,
        username: record.username,
        is_individual: record.isIndividual,
        first_name: record.firstName,
        last_name: record.lastName,
        url: service.profileUrl(record.id),
        service_uid: `service:${record.id}`,
        ...service.imageUrls(record),
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
    },

    async detail(db, profileId) {
      // Independent reads, sent together: postgres.js pipelines them.
      const [record, holdings, uids, accounts] = await Promise.all([
        service.get(db, profileId),
        holdingsProvider(db, profileId),
        store.selectUids(db, profileId),
        accountsProvider(db, profileId),
      ]);
      if (!record) throw new Error(`profile ${profileId} does not exist`);
      return {
        ...service.toPublic(record),
        holdings,
        confirmed_uids: uids.map((uid) => ({ uid })),
        accounts,
        service_uid: `service:${record.id}`,
      };
    },
    registerHoldingsProvider(provider) {
      holdingsProvider = provider;
    },
    registerAccountsProvider(provider) {
      accountsProvider = provider;
    },
  };
  return service;
}
