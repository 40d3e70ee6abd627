// Finishing a sign-in: trusting the device, issuing the token and answering with the attempt as it
// stands once a call has completed MFA or finished the attempt.
import type { Unit } from '../actors/command.ts';
import { trustedDeviceMs } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import { grantedPermissions, limitPermissions, type AccessTokenInfo } from '../tokens/service.ts';
import { authnAttempt, resultOf, send, type AttemptSnapshot } from './attempts.ts';
import type { AuthnContext } from './context.ts';
import type { AttemptContext } from './machine.ts';
import type { AuthnOutcome } from './types.ts';
import * as store from './store.ts';

/** Closed loop attempts keep the closed loop set; others get what is requested and the app is allowed. */
async function tokenPermissions(ctx: AuthnContext, db: Queryable, context: AttemptContext): Promise<string[]> {
  if (context.closedLoop) return limitPermissions(context.permissions, ctx.deps.tokens.closedLoopPermissions);
  // Asked for by name: the app's allowed extras, and a merchant terminal's pull_payment (the pull
  // still needs a business with the pull_payment feature and the customer's consent).
  return grantedPermissions(context.permissions, [...(await ctx.deps.apps.userPermissions(db, context.clientId)), 'pull_payment']);
}

/** Personal mobile devices only: the app declares one by requesting the mobile_device permission. */
export function mayTrust(context: Pick<AttemptContext, 'permissions' | 'closedLoop'>): boolean {
  return Boolean(context.permissions?.includes('mobile_device'));
}

export async function applyTrust(unit: Unit, context: AttemptContext, profileId: string): Promise<void> {
  if (context.trust30 && mayTrust(context)) {
    await store.trustDevice(unit.tx, profileId, context.deviceUuid, new Date(unit.now.getTime() + trustedDeviceMs), unit.now);
  } else if (!context.trust30) {
    await store.distrustDevice(unit.tx, profileId, context.deviceUuid);
  }
}

export async function issueToken(ctx: AuthnContext, unit: Unit, context: AttemptContext, profileId: string): Promise<{ token: AccessTokenInfo; profile: Record<string, unknown> }> {
  const { profiles, tokens } = ctx.deps;
  await profiles.attachDevice(unit.tx, profileId, context.deviceUuid, context.deviceName);
  const token = await tokens.issue(unit.tx, {
    clientId: context.clientId,
    profileId,
    personalProfileId: profileId,
    permissions: await tokenPermissions(ctx, unit.tx, context),
    deviceUuid: context.deviceUuid,
    source: 'authn',
    now: unit.now,
    closedLoopOnly: context.closedLoop,
  });
  const record = await profiles.get(unit.tx, profileId);
  if (!record) throw new Error(`profile ${profileId} vanished during authentication`);
  return { token, profile: profiles.toPublic(record) };
}

/** After MFA completes for an existing wallet (signin and its kin), the token and profile. */
async function completeIfSignedIn(ctx: AuthnContext, unit: Unit, before: AttemptContext, after: AttemptContext) {
  if (before.completedMfa || !after.completedMfa || !after.profileId) return {};
  if (after.intent === 'reset' || after.intent === 'add-uid') return {};
  await store.clearGuard(unit.tx, `login:${after.login.uid}`);
  await applyTrust(unit, after, after.profileId);
  if (after.inviteId) await ctx.deps.invitations.markAcceptedIn(unit, after.inviteId, after.profileId);
  if (after.viaAuthorize) return {};
  return issueToken(ctx, unit, after, after.profileId);
}

/** Answers with the attempt as it now stands, with the token and profile if this call completed MFA. */
export async function answerLatest(ctx: AuthnContext, unit: Unit, id: string, before: AttemptContext, extras: { secret?: string; revealed: (string | null)[] }): Promise<AuthnOutcome> {
  const latest = ((await unit.load(authnAttempt, id)) as AttemptSnapshot).context;
  const completion = await completeIfSignedIn(ctx, unit, before, latest);
  return { ok: true, result: resultOf(ctx, id, latest, { ...extras, ...completion }) };
}

/** Finishes an attempt that made or changed a wallet (signup, reset) and answers with its token. */
export async function finishAttempt(ctx: AuthnContext, unit: Unit, id: string, finished: { profileId: string; profileTitle: string }, completion: Awaited<ReturnType<typeof issueToken>>): Promise<AuthnOutcome> {
  const after = send(unit, id, { type: 'attempt.finish', ...finished });
  if (!after) throw new Error('an active attempt refused attempt.finish');
  unit.cancelTimer(authnAttempt, id, 'expire');
  return { ok: true, result: resultOf(ctx, id, after.context, completion) };
}
