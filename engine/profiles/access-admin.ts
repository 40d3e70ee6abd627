// The operator's profile calls: a profile's admin view, its flags, features and managers, and
// suspending, unsuspending or closing its wallet.
import type { ProfileAccessContext } from './context.ts';
import type { CreateIndividualInput } from './create.ts';
import type { ProfileFlagsUpdate } from './edits.ts';
import { refuse, type Access, type AccessRefusal, type ProfileAccessError } from './errors.ts';
import { wallet, walletLock } from './machine.ts';
import { canonicalUidOf } from './names.ts';
import type { ProfileRecord } from './records.ts';

export interface AdminProfileView {
  profile: Record<string, unknown>;
  site: string;
  features: string[];
  managers: string[];
  managed: string[];
  wallet_state: string | null;
}

export type WalletAction = 'suspend' | 'unsuspend' | 'close';

export async function adminView(ctx: ProfileAccessContext, profileId: string): Promise<AdminProfileView | null> {
  const { sql } = ctx.core;
  const { profiles } = ctx;
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
}

/** An individual the operator creates on a site, with a confirmed email or phone UID when given. */
export async function adminAddIndividual(ctx: ProfileAccessContext, site: string, input: Omit<CreateIndividualInput, 'site' | 'confirmedUids'> & { uid?: string }): Promise<Access<{ profile: ProfileRecord }>> {
  const { profiles } = ctx;
  const { uid: typed, ...fields } = input;
  const uid = typed === undefined ? null : canonicalUidOf(typed);
  if (typed !== undefined && (!uid || uid.startsWith('service:'))) return refuse('uid_invalid', { uid: 'must be an email address or a phone number' });
  const outcome = await ctx.core.commands.run<{ profileId: string }, AccessRefusal>('profile.add_individual', [], async (unit) => {
    if (uid && (await profiles.findByUid(unit.tx, uid))) return unit.reject(refuse('uid_in_use', { uid: `${uid} belongs to another profile` }));
    return profiles.createIndividualIn(unit, { ...fields, site, confirmedUids: uid ? [uid] : [] });
  });
  if ('error' in outcome) return outcome;
  return { ok: true, profile: (await profiles.get(ctx.core.sql, outcome.profileId))! };
}

export async function setFlags(ctx: ProfileAccessContext, profileId: string, flags: ProfileFlagsUpdate): Promise<Access<{ profile: ProfileRecord }>> {
  const set = await ctx.profiles.setFlags(ctx.core.sql, profileId, flags);
  if (!set.ok) return set.error === 'username_taken' ? refuse('username_taken', { username: 'is taken' }) : refuse(set.error);
  return { ok: true, profile: (await ctx.profiles.get(ctx.core.sql, profileId))! };
}

/** Adds (on) or removes a feature of an existing profile; its features after, or null without the profile. */
export async function switchFeature(ctx: ProfileAccessContext, profileId: string, feature: string, on: boolean): Promise<string[] | null> {
  const { sql } = ctx.core;
  if (!(await ctx.profiles.get(sql, profileId))) return null;
  if (on) await ctx.profiles.addFeature(sql, profileId, feature);
  else await ctx.profiles.removeFeature(sql, profileId, feature);
  return ctx.profiles.features(sql, profileId);
}

export async function addManager(ctx: ProfileAccessContext, businessId: string, managerUid: string): Promise<Access<{ managers: string[] }>> {
  const { sql } = ctx.core;
  const { profiles } = ctx;
  const business = await profiles.get(sql, businessId);
  if (!business) return refuse('profile_not_found');
  const uid = canonicalUidOf(managerUid);
  const manager = uid ? await profiles.findByUid(sql, uid) : null;
  if (business.isIndividual || !manager || !manager.isIndividual || manager.site !== business.site) {
    return refuse('manager_not_found', { manager_uid: 'must name a personal profile of the business\'s site' });
  }
  await profiles.addManager(sql, business.id, manager.id);
  return { ok: true, managers: await profiles.managers(sql, business.id) };
}

export async function changeWallet(ctx: ProfileAccessContext, profileId: string, action: WalletAction): Promise<{ ok: true; state: string } | { ok: false; error: Extract<ProfileAccessError, 'profile_not_found' | 'wallet_transition_refused'> }> {
  const type = `wallet.${action}` as const;
  const state = await ctx.core.commands.run(type, [walletLock(profileId)], async (unit) => {
    if (!(await unit.load(wallet, profileId))) return null;
    const next = unit.send(wallet, profileId, { type, at: unit.now.toISOString() });
    return next ? String(next.value) : 'refused';
  });
  if (state === null) return { ok: false, error: 'profile_not_found' };
  if (state === 'refused') return { ok: false, error: 'wallet_transition_refused' };
  return { ok: true, state };
}
