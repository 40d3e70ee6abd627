// Profile access as the API asks for it: each call is one whole operation (its reads, checks and
// transaction here, not in a route), answering an expected refusal as a value. Routes call these;
// they never reach the database or the command runner themselves.
import type { Core } from '../core.ts';
import type { Queryable } from '../storage/database.ts';
import { limitPermissions, type AccessTokenInfo, type TokenPrincipal, type TokensService } from '../tokens/service.ts';
import type { ProfileAccessError } from './errors.ts';
import { wallet, walletLock } from './machine.ts';
import { canonicalUidOf } from './names.ts';
import type { CreateBusinessInput, CreateIndividualInput, LocationOutcome, ProfileFlagsUpdate, ProfileRecord, ProfilesService } from './service.ts';
import type { Location } from './location.ts';

/** A refusal, with the request field it is about where there is one. */
export interface AccessRefusal {
  ok: false;
  error: ProfileAccessError;
  invalid?: Record<string, string>;
}
export type Access<T> = ({ ok: true } & T) | AccessRefusal;

export interface ProfileTokenRequest {
  uid: string;
  managerUid?: string;
  deviceUuid?: string;
  deviceName?: string;
  permissions?: string[];
  concurrent?: boolean;
}

export interface AdminProfileView {
  profile: Record<string, unknown>;
  site: string;
  features: string[];
  managers: string[];
  managed: string[];
  wallet_state: string | null;
}

export type WalletAction = 'suspend' | 'unsuspend' | 'close';

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
  setFlags(profileId: string, flags: ProfileFlagsUpdate): Promise<Access<{ profile: ProfileRecord }>>;
  addFeature(profileId: string, feature: string): Promise<string[] | null>;
  removeFeature(profileId: string, feature: string): Promise<string[] | null>;
  addManager(businessId: string, managerUid: string): Promise<Access<{ managers: string[] }>>;
  setLocation(profileId: string, location: Location | null): Promise<LocationOutcome>;
  /** Suspends, unsuspends or closes a wallet: its new state, or why not. */
  changeWallet(profileId: string, action: WalletAction): Promise<{ ok: true; state: string } | { ok: false; error: Extract<ProfileAccessError, 'profile_not_found' | 'wallet_transition_refused'> }>;
}

function refuse(error: ProfileAccessError, invalid?: Record<string, string>): AccessRefusal {
  return invalid ? { ok: false, error, invalid } : { ok: false, error };
}

export function createProfileAccessService(core: Core, deps: { profiles: ProfilesService; tokens: TokensService }): ProfileAccessService {
  const { sql, commands } = core;
  const { profiles, tokens } = deps;

  async function findOnSite(db: Queryable, text: string, site: string): Promise<ProfileRecord | null> {
    const uid = canonicalUidOf(text);
    if (!uid) return null;
    const profile = await profiles.findByUid(db, uid);
    return profile && profile.site === site ? profile : null;
  }

  /** The personal profile a token for this profile acts for: itself, or the named manager of a business. */
  async function actingPerson(db: Queryable, profile: ProfileRecord, managerUid: string | undefined, site: string): Promise<Access<{ personalProfileId: string }>> {
    if (profile.isIndividual) return { ok: true, personalProfileId: profile.id };
    if (!managerUid || managerUid.trim() === '') return refuse('manager_required', { manager_uid: 'is required for a business' });
    const manager = await findOnSite(db, managerUid, site);
    if (!manager || !manager.isIndividual) return refuse('manager_not_found', { manager_uid: 'no personal profile with this UID on the app\'s site' });
    if (!(await profiles.isManager(db, profile.id, manager.id))) return refuse('not_manager');
    return { ok: true, personalProfileId: manager.id };
  }

  return {
    get: (profileId) => profiles.get(sql, profileId),
    detail: (profileId) => profiles.detail(sql, profileId),
    findByUid: (canonicalUid) => profiles.findByUid(sql, canonicalUid),

    async addIndividual(site, input) {
      const { profileId } = await commands.run('profile.add_individual', [], (unit) => profiles.createIndividualIn(unit, { ...input, site }));
      return (await profiles.get(sql, profileId))!;
    },

    async addBusiness(site, managerUid, input) {
      if (!managerUid || managerUid.trim() === '') return refuse('manager_required', { manager_uid: 'is required' });
      const manager = await findOnSite(sql, managerUid, site);
      if (!manager || !manager.isIndividual) return refuse('manager_not_found', { manager_uid: 'no personal profile with this UID on the app\'s site' });
      const { profileId } = await commands.run('profile.add_business', [], (unit) => profiles.createBusinessIn(unit, { ...input, site, managerProfileId: manager.id }));
      return { ok: true, profile: (await profiles.get(sql, profileId))! };
    },

    async getByUid(text, site) {
      const profile = await findOnSite(sql, text, site);
      return profile ? { profile, uids: await profiles.confirmedUids(sql, profile.id) } : null;
    },

    issueProfileToken(app, request, now) {
      return sql.begin(async (tx): Promise<Access<{ token: AccessTokenInfo }>> => {
        const profile = await findOnSite(tx, request.uid, app.site);
        if (!profile) return refuse('uid_not_found', { uid: 'no profile with this UID on the app\'s site' });
        if ((await profiles.walletState(tx, profile.id)) !== 'active') return refuse('not_available');
        const person = await actingPerson(tx, profile, request.managerUid, app.site);
        if (!person.ok) return person;
        if (request.deviceUuid) await profiles.attachDevice(tx, profile.id, request.deviceUuid, request.deviceName ?? null);
        const token = await tokens.issue(tx, {
          clientId: app.clientId,
          profileId: profile.id,
          personalProfileId: person.personalProfileId,
          permissions: limitPermissions(request.permissions, tokens.closedLoopPermissions),
          deviceUuid: request.deviceUuid ?? null,
          concurrent: request.concurrent ?? false,
          source: 'p_token',
          now,
        });
        return { ok: true, token };
      });
    },

    async siteFeatures(profileId, site) {
      const profile = await findOnSite(sql, `service:${profileId}`, site);
      return profile ? profiles.features(sql, profile.id) : null;
    },

    switchSiteFeatures(profileId, site, wanted) {
      return sql.begin(async (tx) => {
        const profile = await findOnSite(tx, `service:${profileId}`, site);
        if (!profile) return null;
        for (const [feature, on] of Object.entries(wanted)) {
          if (on === true) await profiles.addFeature(tx, profile.id, feature);
          if (on === false) await profiles.removeFeature(tx, profile.id, feature);
        }
        return profiles.features(tx, profile.id);
      });
    },

    async walletInfo(principal) {
      if (!(await profiles.get(sql, principal.profileId))) return null;
      const profile = await profiles.detail(sql, principal.profileId);
      const related: Record<string, unknown>[] = [];
      for (const managed of await profiles.managedBy(sql, principal.personalProfileId)) {
        if (managed.id !== principal.profileId) related.push(await profiles.detail(sql, managed.id));
      }
      const answer: Record<string, unknown> = { profile, related };
      if (principal.profileId !== principal.personalProfileId) {
        const personal = await profiles.get(sql, principal.personalProfileId);
        if (personal) answer.personal_profile = profiles.toPublic(personal);
      }
      return answer;
    },

    async selectable(personalProfileId) {
      const personal = await profiles.get(sql, personalProfileId);
      const managed = await profiles.managedBy(sql, personalProfileId);
      return [...(personal ? [personal] : []), ...managed];
    },

    select(principal, targetId, now) {
      // A closed-loop token from POST /p/token cannot widen itself to other profiles.
      if (principal.closedLoopOnly) return Promise.resolve(refuse('app_denied'));
      return sql.begin(async (tx): Promise<Access<{ token: AccessTokenInfo }>> => {
        const target = await profiles.get(tx, targetId);
        if (!target) return refuse('not_available');
        if (target.id !== principal.personalProfileId && !(await profiles.isManager(tx, target.id, principal.personalProfileId))) return refuse('not_manager');
        if ((await profiles.walletState(tx, target.id)) !== 'active') return refuse('not_available');
        const token = await tokens.issue(tx, {
          clientId: principal.clientId,
          profileId: target.id,
          personalProfileId: principal.personalProfileId,
          permissions: [...principal.permissions],
          deviceUuid: principal.deviceId,
          source: 'select',
          oauthCodeId: principal.oauthCodeId,
          now,
          hardExpiresAt: principal.hardExpiresAt,
          closedLoopOnly: principal.closedLoopOnly,
        });
        return { ok: true, token };
      });
    },

    async adminView(profileId) {
      const record = await profiles.get(sql, profileId);
      if (!record) return null;
      return {
        profile: await profiles.detail(sql, record.id),
        site: record.site,
        features: await profiles.features(sql, record.id),
        managers: await profiles.managers(sql, record.id),
        managed: (await profiles.managedBy(sql, record.id)).map((managed) => managed.id),
        wallet_state: await profiles.walletState(sql, record.id),
      };
    },

    async setFlags(profileId, flags) {
      const set = await profiles.setFlags(sql, profileId, flags);
      if (!set.ok) return set.error === 'username_taken' ? refuse('username_taken', { username: 'is taken' }) : refuse(set.error);
      return { ok: true, profile: (await profiles.get(sql, profileId))! };
    },

    async addFeature(profileId, feature) {
      if (!(await profiles.get(sql, profileId))) return null;
      await profiles.addFeature(sql, profileId, feature);
      return profiles.features(sql, profileId);
    },

    async removeFeature(profileId, feature) {
      if (!(await profiles.get(sql, profileId))) return null;
      await profiles.removeFeature(sql, profileId, feature);
      return profiles.features(sql, profileId);
    },

    async addManager(businessId, managerUid) {
      const business = await profiles.get(sql, businessId);
      if (!business) return refuse('profile_not_found');
      const uid = canonicalUidOf(managerUid);
      const manager = uid ? await profiles.findByUid(sql, uid) : null;
      if (business.isIndividual || !manager || !manager.isIndividual || manager.site !== business.site) {
        return refuse('manager_not_found', { manager_uid: 'must name a personal profile of the business\'s site' });
      }
      await profiles.addManager(sql, business.id, manager.id);
      return { ok: true, managers: await profiles.managers(sql, business.id) };
    },

    setLocation: (profileId, location) => profiles.setLocation(sql, profileId, location),

    async changeWallet(profileId, action) {
      const type = `wallet.${action}` as const;
      const state = await commands.run(type, [walletLock(profileId)], async (unit) => {
        if (!(await unit.load(wallet, profileId))) return null;
        const next = unit.send(wallet, profileId, { type, at: unit.now.toISOString() });
        return next ? String(next.value) : 'refused';
      });
      if (state === null) return { ok: false, error: 'profile_not_found' };
      if (state === 'refused') return { ok: false, error: 'wallet_transition_refused' };
      return { ok: true, state };
    },
  };
}
