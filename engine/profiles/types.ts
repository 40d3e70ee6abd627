// The types of engine/profiles: the service's interface and what its parts share. A leaf
// module: it imports types only, so the parts import it without importing service.ts (no import cycle).
import type { Unit } from '../actors/command.ts';
import type { Queryable } from '../storage/database.ts';
import type { Core } from '../core.ts';
import type { CreateBusinessInput, CreateIndividualInput } from './create.ts';
import type { FlagsOutcome, LocationOutcome, ProfileFlagsUpdate } from './edits.ts';
import type { Location } from './location.ts';
import type { ProfileRecord } from './records.ts';

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

export type ListProvider = (db: Queryable, profileId: string) => Promise<unknown[]>;

export interface ProfilesContext {
  core: Core;
  baseUrl: string;
  holdingsProvider: ListProvider;
  accountsProvider: ListProvider;
}
