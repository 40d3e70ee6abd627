// A signed-in person and the profiles it may act as: the wallet info of the selected profile with
// the related businesses, the profiles it may select, and a token for one (GET /token/select/<id>).
import type { AccessTokenInfo, TokenPrincipal } from '../tokens/service.ts';
import type { ProfileAccessContext } from './context.ts';
import { refuse, type Access } from './errors.ts';
import type { ProfileRecord } from './records.ts';

export async function walletInfo(ctx: ProfileAccessContext, principal: TokenPrincipal): Promise<Record<string, unknown> | null> {
  const { sql } = ctx.core;
  const { profiles } = ctx;
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
}

export async function selectable(ctx: ProfileAccessContext, personalProfileId: string): Promise<ProfileRecord[]> {
  const personal = await ctx.profiles.get(ctx.core.sql, personalProfileId);
  const managed = await ctx.profiles.managedBy(ctx.core.sql, personalProfileId);
  return [...(personal ? [personal] : []), ...managed];
}

export function select(ctx: ProfileAccessContext, principal: TokenPrincipal, targetId: string, now: Date): Promise<Access<{ token: AccessTokenInfo }>> {
  const { profiles, tokens } = ctx;
  // A closed-loop token from POST /p/token cannot widen itself to other profiles.
  if (principal.closedLoopOnly) return Promise.resolve(refuse('app_denied'));
  return ctx.core.sql.begin(async (tx): Promise<Access<{ token: AccessTokenInfo }>> => {
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
}
