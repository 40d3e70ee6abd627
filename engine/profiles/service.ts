// Profiles (individual and business), their UIDs, managers, features and wallets. A wallet is an
// actor (kind 'wallet', id = profile id) created in the same command as its profile.
import type { Core } from '../core.ts';
import type { ProfilesContext } from './context.ts';
import { claimedProfileId, claimPending, takeOverClaimIn } from './claims.ts';
import { createBusinessIn, createIndividualIn } from './create.ts';
import { rename, setFlags, setLocation } from './edits.ts';
import { findByUid, getProfile, managedBy } from './records.ts';
import * as store from './store.ts';
import { detail, imageUrls, profileUrl, toMe, toPublic } from './wire.ts';
import type { ProfilesService } from './types.ts';
export type { ProfilesService } from './types.ts';

export type { ListProvider } from './context.ts';
export { individualTitle, type CreateBusinessInput, type CreateIndividualInput } from './create.ts';
export type { FlagsOutcome, LocationOutcome, ProfileFlagsUpdate } from './edits.ts';
export type { Address, ProfileRecord } from './records.ts';
export { formatAddress } from './wire.ts';

export const profileFeatureNames = ['design_gl', 'bill', 'pull_payment', 'issue_open_loop'] as const;

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
