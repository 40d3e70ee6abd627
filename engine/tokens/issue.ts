// Issuing an access token: `t<client_id>-<id>-<secret>`, stored only as a sha256 hash, with a soft
// expiration inside its hard one.
import { randomSecret, secretHash } from '../ids.ts';
import { concurrentTokenHardExpirationMs, tokenHardExpirationMs, tokenSecretBytes, tokenSoftExpirationMs } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { AccessTokenInfo, IssueInput, TokensContext } from './types.ts';
import * as store from './store.ts';

/** Whole seconds left, rounded down and one short, so a client never acts a second too late (sample 899 for 15 minutes). */
export function secondsUntil(at: Date, now: Date): number {
  return Math.max(0, Math.ceil((at.getTime() - now.getTime()) / 1000) - 1);
}

/** The hard expiration (the default, or an earlier one asked for) and the soft one inside it. */
function expirations(input: IssueInput): { softExpiresAt: Date; hardExpiresAt: Date } {
  const defaultHardMs = (input.concurrent ?? false) ? concurrentTokenHardExpirationMs : tokenHardExpirationMs;
  let hardExpiresAt = new Date(input.now.getTime() + defaultHardMs);
  if (input.hardExpiresAt && input.hardExpiresAt < hardExpiresAt) hardExpiresAt = input.hardExpiresAt;
  const softMs = Math.min(input.now.getTime() + tokenSoftExpirationMs, hardExpiresAt.getTime());
  return { softExpiresAt: new Date(softMs), hardExpiresAt };
}

export async function issue(ctx: TokensContext, db: Queryable, input: IssueInput): Promise<AccessTokenInfo> {
  const concurrent = input.concurrent ?? false;
  const { softExpiresAt, hardExpiresAt } = expirations(input);
  // A full sign-in (password and second factor, or OAuth) proves the person again: the refresh count restarts.
  if (input.source === 'authn' || input.source === 'oauth') await store.clearRefreshGuard(db, input.personalProfileId, input.clientId);
  const sequence = await store.nextTokenSequence(db);
  const id = ctx.core.ids.long(sequence, 'token');
  const accessToken = `t${input.clientId}-${id}-${randomSecret(tokenSecretBytes)}`;
  const permissions = [...new Set(input.permissions)];
  await store.insertToken(db, {
    id,
    sequence,
    token_hash: secretHash(accessToken),
    client_id: input.clientId,
    profile_id: input.profileId,
    personal_profile_id: input.personalProfileId,
    device_uuid: input.deviceUuid ?? null,
    device_scoped: input.deviceScoped ?? (input.source === 'select' || input.source === 'p_token'),
    permissions,
    concurrent,
    closed_loop_only: input.closedLoopOnly ?? input.source === 'p_token',
    source: input.source,
    oauth_code_id: input.oauthCodeId ?? null,
    issued_at: input.now,
    soft_expires_at: softExpiresAt,
    hard_expires_at: hardExpiresAt,
  });
  return {
    access_token: accessToken,
    token_type: 'bearer',
    expires_in: secondsUntil(softExpiresAt, input.now),
    hard_expires_in: secondsUntil(hardExpiresAt, input.now),
    scope: permissions.join(' '),
  };
}
