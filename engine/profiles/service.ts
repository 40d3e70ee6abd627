// Profiles (individual and business), their UIDs, managers, features and wallets. A wallet is an
// actor (kind 'wallet', id = profile id) created in the same command as its profile.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import type { Queryable } from '../storage/database.ts';
import type { ListProvider, ProfilesContext } from './context.ts';
import { claimedProfileId, claimPending, takeOverClaimIn } from './claims.ts';
import { createBusinessIn, createIndividualIn, type CreateBusinessInput, type CreateIndividualInput } from './create.ts';
import { rename, setFlags, setLocation, type FlagsOutcome, type LocationOutcome, type ProfileFlagsUpdate } from './edits.ts';
import type { Location } from './location.ts';
import { findByUid, getProfile, managedBy, type ProfileRecord } from './records.ts';
import * as store from './store.ts';
import { detail, imageUrls, profileUrl, toMe, toPublic } from './wire.ts';

export type { ListProvider } from './context.ts';
export { individualTitle, type CreateBusinessInput, type CreateIndividualInput } from './create.ts';
export type { FlagsOutcome, LocationOutcome, ProfileFlagsUpdate } from './edits.ts';
export type { Address, ProfileRecord } from './records.ts';
export { formatAddress } from './wire.ts';

export const profileFeatureNames = ['design_gl', 'bill', 'pull_payment', 'issue_open_loop'] as const;

export interface ProfilesService {
  createIndividualIn(unit: Unit, input: CreateIndividualInput): Promise<{ profileId: string }>;
  createBusinessIn(unit: Unit, input: CreateBusinessInput): Promise<{ profileId: string }>;
  /** The profile of the site waiting for the owner of an unproved UID (a bill's email), or null. */
  claimedProfileId(db: Queryable, site: string, uid: string): Promise<string | null>;
  /** Whether the profile still waits for its owner to prove a claimed UID (no token is issued for it). */
  claimPending(db: Queryable, profileId: string): Promise<boolean>;
  /** A sign-up proving a claimed UID takes the waiting profile over; null when none waits. */
  takeOverClaimIn(unit: Unit, input: CreateIndividualInput): Promise<{ profileId: string } | null>;
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
  /** GET /me: toPublic with the legacy aliases display_name and photo50. */
  toMe(record: ProfileRecord): Record<string, unknown>;
  /** The wire ProfileDetail (supplement 2.5): Profile + holdings, confirmed_uids, accounts. */
  detail(db: Queryable, profileId: string): Promise<Record<string, unknown>>;
  registerHoldingsProvider(provider: ListProvider): void;
  registerAccountsProvider(provider: ListProvider): void;
}

export function createProfilesService(core: Core): ProfilesService {
  const { clock } = core;
  const ctx: ProfilesContext = { core, baseUrl: core.config.publicUrl, holdingsProvider: async () => [], accountsProvider: async () => [] };
  return {
    createIndividualIn,
    createBusinessIn,
    claimedProfileId,
    claimPending,
    takeOverClaimIn,
    get: getProfile,
    findByUid,
    confirmedUids: (db, profileId) => store.selectUids(db, profileId),
    addConfirmedUid: (db, profileId, uid) => store.insertUid(db, profileId, uid, clock.now()),
    removeUid: (db, profileId, uid) => store.deleteUid(db, profileId, uid),
    setPasswordHash: (db, profileId, hash) => store.updatePasswordHash(db, profileId, hash),
    managers: (db, businessId) => store.selectManagerIds(db, businessId),
    managedBy,
    isManager: (db, businessId, personalProfileId) => store.isManager(db, businessId, personalProfileId),
    addManager: (db, businessId, personalProfileId) => store.insertManager(db, businessId, personalProfileId, clock.now()),
    attachDevice: (db, profileId, deviceUuid, deviceName) => store.upsertDevice(db, profileId, deviceUuid, deviceName, clock.now()),
    devices: async (db, profileId) => (await store.selectDevices(db, profileId)).map((row) => ({ deviceUuid: row.device_uuid, deviceName: row.device_name })),
    walletState: (db, profileId) => store.selectWalletState(db, profileId),
    hasFeature: async (db, profileId, feature) => (await store.selectFeatures(db, profileId)).includes(feature),
    addFeature: (db, profileId, feature) => store.insertFeature(db, profileId, feature, clock.now()),
    removeFeature: (db, profileId, feature) => store.deleteFeature(db, profileId, feature),
    features: (db, profileId) => store.selectFeatures(db, profileId),
    setFlags,
    rename,
    profileUrl: (profileId) => profileUrl(ctx, profileId),
    imageUrls: (record) => imageUrls(ctx, record),
    bumpImageVersion: (db, profileId) => store.bumpImageVersion(db, profileId),
    setLocation,
    toPublic: (record) => toPublic(ctx, record),
    toMe: (record) => toMe(ctx, record),
    detail: (db, profileId) => detail(ctx, db, profileId),
    registerHoldingsProvider(provider) {
      ctx.holdingsProvider = provider;
    },
    registerAccountsProvider(provider) {
      ctx.accountsProvider = provider;
    },
  };
}
