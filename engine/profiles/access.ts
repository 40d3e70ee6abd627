// Profile access as the API asks for it: each call is one whole operation (its reads, checks and
// transaction here, not in a route), answering an expected refusal as a value. Routes call these;
// they never reach the database or the command runner themselves.
import type { Core } from '../core.ts';
import type { AccessTokenInfo, TokenPrincipal, TokensService } from '../tokens/service.ts';
import { addManager, adminAddIndividual, adminView, changeWallet, setFlags, switchFeature, type AdminProfileView, type WalletAction } from './access-admin.ts';
import { select, selectable, walletInfo } from './access-selection.ts';
import { addBusiness, addIndividual, getByUid, issueProfileToken, siteFeatures, switchSiteFeatures, type ProfileTokenRequest } from './access-site.ts';
import type { ProfileAccessContext } from './context.ts';
import type { Access, ProfileAccessError } from './errors.ts';
import type { Location } from './location.ts';
import type { CreateBusinessInput, CreateIndividualInput, LocationOutcome, ProfileFlagsUpdate, ProfileRecord } from './service.ts';
import type { ProfilesService } from './types.ts';

export type { AdminProfileView, WalletAction } from './access-admin.ts';
export type { ProfileTokenRequest } from './access-site.ts';
export type { Access, AccessRefusal } from './errors.ts';

export interface ProfileAccessService {
  get(profileId: string): Promise<ProfileRecord | null>;
  /** The wire ProfileDetail (supplement 2.5). */
  detail(profileId: string): Promise<Record<string, unknown>>;
  findByUid(canonicalUid: string): Promise<ProfileRecord | null>;
  addIndividual(site: string, input: Omit<CreateIndividualInput, 'site'>): Promise<ProfileRecord>;
  addBusiness(site: string, managerUid: string | undefined, input: Omit<CreateBusinessInput, 'site' | 'managerProfileId'>): Promise<Access<{ profile: ProfileRecord }>>;
  /** A same-site profile by what the caller typed, with its confirmed UIDs, or null. */
  getByUid(text: string, site: string): Promise<{ profile: ProfileRecord; uids: string[] } | null>;
  /** POST /p/token: a closed-loop token for a profile of the app's site. */
  issueProfileToken(app: { clientId: string; site: string }, request: ProfileTokenRequest, now: Date): Promise<Access<{ token: AccessTokenInfo }>>;
  /** The features of a profile of the app's site, or null. */
  siteFeatures(profileId: string, site: string): Promise<string[] | null>;
  /** Switches features (true adds, false removes) of a profile of the app's site, in one transaction. */
  switchSiteFeatures(profileId: string, site: string, wanted: Record<string, boolean | undefined>): Promise<string[] | null>;
  /** GET /wallet/info: the profile's detail, the related profiles, and the personal profile of a selected business. */
  walletInfo(principal: TokenPrincipal): Promise<Record<string, unknown> | null>;
  /** Profiles the personal profile may select: itself and the businesses it manages. */
  selectable(personalProfileId: string): Promise<ProfileRecord[]>;
  /** GET /token/select/<id>: a token for the personal profile or a business it manages. */
  select(principal: TokenPrincipal, targetId: string, now: Date): Promise<Access<{ token: AccessTokenInfo }>>;
  adminView(profileId: string): Promise<AdminProfileView | null>;
  /** The operator creates an individual on a site, with a confirmed email or phone UID when given. */
  adminAddIndividual(site: string, input: Omit<CreateIndividualInput, 'site' | 'confirmedUids'> & { uid?: string }): Promise<Access<{ profile: ProfileRecord }>>;
  setFlags(profileId: string, flags: ProfileFlagsUpdate): Promise<Access<{ profile: ProfileRecord }>>;
  addFeature(profileId: string, feature: string): Promise<string[] | null>;
  removeFeature(profileId: string, feature: string): Promise<string[] | null>;
  addManager(businessId: string, managerUid: string): Promise<Access<{ managers: string[] }>>;
  setLocation(profileId: string, location: Location | null): Promise<LocationOutcome>;
  /** Suspends, unsuspends or closes a wallet: its new state, or why not. */
  changeWallet(profileId: string, action: WalletAction): Promise<{ ok: true; state: string } | { ok: false; error: Extract<ProfileAccessError, 'profile_not_found' | 'wallet_transition_refused'> }>;
}

export function createProfileAccessService(core: Core, deps: { profiles: ProfilesService; tokens: TokensService }): ProfileAccessService {
  const ctx: ProfileAccessContext = { core, ...deps };
  const { sql } = core;
  const { profiles } = deps;
  return {
    get: (profileId) => profiles.get(sql, profileId),
    detail: (profileId) => profiles.detail(sql, profileId),
    findByUid: (canonicalUid) => profiles.findByUid(sql, canonicalUid),
    addIndividual: (site, input) => addIndividual(ctx, site, input),
    addBusiness: (site, managerUid, input) => addBusiness(ctx, site, managerUid, input),
    getByUid: (text, site) => getByUid(ctx, text, site),
    issueProfileToken: (app, request, now) => issueProfileToken(ctx, app, request, now),
    siteFeatures: (profileId, site) => siteFeatures(ctx, profileId, site),
    switchSiteFeatures: (profileId, site, wanted) => switchSiteFeatures(ctx, profileId, site, wanted),
    walletInfo: (principal) => walletInfo(ctx, principal),
    selectable: (personalProfileId) => selectable(ctx, personalProfileId),
    select: (principal, targetId, now) => select(ctx, principal, targetId, now),
    adminView: (profileId) => adminView(ctx, profileId),
    adminAddIndividual: (site, input) => adminAddIndividual(ctx, site, input),
    setFlags: (profileId, flags) => setFlags(ctx, profileId, flags),
    addFeature: (profileId, feature) => switchFeature(ctx, profileId, feature, true),
    removeFeature: (profileId, feature) => switchFeature(ctx, profileId, feature, false),
    addManager: (businessId, managerUid) => addManager(ctx, businessId, managerUid),
    setLocation: (profileId, location) => profiles.setLocation(sql, profileId, location),
    changeWallet: (profileId, action) => changeWallet(ctx, profileId, action),
  };
}
