// What an app does with the profiles of its own site: adds them, finds them by what a caller typed,
// switches their features, and issues a closed-loop token for one (POST /p/token).
import type { Queryable } from '../storage/database.ts';
import { limitPermissions, type AccessTokenInfo } from '../tokens/service.ts';
import type { ProfileAccessContext } from './context.ts';
import type { CreateBusinessInput, CreateIndividualInput } from './create.ts';
import { refuse, type Access } from './errors.ts';
import { canonicalUidOf } from './names.ts';
import type { ProfileRecord } from './records.ts';

export interface ProfileTokenRequest {
  uid: string;
  managerUid?: string;
  deviceUuid?: string;
  deviceName?: string;
  permissions?: string[];
  concurrent?: boolean;
}

async function findOnSite(ctx: ProfileAccessContext, db: Queryable, text: string, site: string): Promise<ProfileRecord | null> {
  const uid = canonicalUidOf(text);
  if (!uid) return null;
  const profile = await ctx.profiles.findByUid(db, uid);
  return profile && profile.site === site ? profile : null;
}

/** The personal profile a token for this profile acts for: itself, or the named manager of a business. */
async function actingPerson(ctx: ProfileAccessContext, db: Queryable, profile: ProfileRecord, managerUid: string | undefined, site: string): Promise<Access<{ personalProfileId: string }>> {
  if (profile.isIndividual) return { ok: true, personalProfileId: profile.id };
  if (!managerUid || managerUid.trim() === '') return refuse('manager_required', { manager_uid: 'is required for a business' });
  const manager = await findOnSite(ctx, db, managerUid, site);
  if (!manager || !manager.isIndividual) return refuse('manager_not_found', { manager_uid: 'no personal profile with this UID on the app\'s site' });
  if (!(await ctx.profiles.isManager(db, profile.id, manager.id))) return refuse('not_manager');
  return { ok: true, personalProfileId: manager.id };
}

export async function addIndividual(ctx: ProfileAccessContext, site: string, input: Omit<CreateIndividualInput, 'site'>): Promise<ProfileRecord> {
  const { profiles } = ctx;
  const { profileId } = await ctx.core.commands.run('profile.add_individual', [], (unit) => profiles.createIndividualIn(unit, { ...input, site }));
  return (await profiles.get(ctx.core.sql, profileId))!;
}

export async function addBusiness(ctx: ProfileAccessContext, site: string, managerUid: string | undefined, input: Omit<CreateBusinessInput, 'site' | 'managerProfileId'>): Promise<Access<{ profile: ProfileRecord }>> {
  const { profiles } = ctx;
  if (!managerUid || managerUid.trim() === '') return refuse('manager_required', { manager_uid: 'is required' });
  const manager = await findOnSite(ctx, ctx.core.sql, managerUid, site);
  if (!manager || !manager.isIndividual) return refuse('manager_not_found', { manager_uid: 'no personal profile with this UID on the app\'s site' });
  const { profileId } = await ctx.core.commands.run('profile.add_business', [], (unit) => profiles.createBusinessIn(unit, { ...input, site, managerProfileId: manager.id }));
  return { ok: true, profile: (await profiles.get(ctx.core.sql, profileId))! };
}

export async function getByUid(ctx: ProfileAccessContext, text: string, site: string): Promise<{ profile: ProfileRecord; uids: string[] } | null> {
  const profile = await findOnSite(ctx, ctx.core.sql, text, site);
  return profile ? { profile, uids: await ctx.profiles.confirmedUids(ctx.core.sql, profile.id) } : null;
}

export function issueProfileToken(ctx: ProfileAccessContext, app: { clientId: string; site: string }, request: ProfileTokenRequest, now: Date): Promise<Access<{ token: AccessTokenInfo }>> {
  const { profiles, tokens } = ctx;
  return ctx.core.sql.begin(async (tx): Promise<Access<{ token: AccessTokenInfo }>> => {
    const profile = await findOnSite(ctx, tx, request.uid, app.site);
    // A profile waiting for the owner of a claimed UID (a bill's email) is no one's to act for yet.
    if (!profile || (await profiles.claimPending(tx, profile.id))) return refuse('uid_not_found', { uid: 'no profile with this UID on the app\'s site' });
    if ((await profiles.walletState(tx, profile.id)) !== 'active') return refuse('not_available');
    const person = await actingPerson(ctx, tx, profile, request.managerUid, app.site);
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
}

export async function siteFeatures(ctx: ProfileAccessContext, profileId: string, site: string): Promise<string[] | null> {
  const profile = await findOnSite(ctx, ctx.core.sql, `service:${profileId}`, site);
  return profile ? ctx.profiles.features(ctx.core.sql, profile.id) : null;
}

export function switchSiteFeatures(ctx: ProfileAccessContext, profileId: string, site: string, wanted: Record<string, boolean | undefined>): Promise<string[] | null> {
  const { profiles } = ctx;
  return ctx.core.sql.begin(async (tx) => {
    const profile = await findOnSite(ctx, tx, `service:${profileId}`, site);
    if (!profile) return null;
    for (const [feature, on] of Object.entries(wanted)) {
      if (on === true) await profiles.addFeature(tx, profile.id, feature);
      if (on === false) await profiles.removeFeature(tx, profile.id, feature);
    }
    return profiles.features(tx, profile.id);
  });
}
