// Token calls: selectable profiles, select, refresh (password or PIN) and logout.
import { accessTokenInfo, emptyResponse, profile } from '../http/schemas.ts';
import { z } from 'zod';
import type { TokenCallError } from '../../engine/tokens/errors.ts';
import { passwordCharsMax } from '../../engine/limits.ts';
import { edgeErrors, errorTable, httpError } from '../http/errors.ts';
import { boundedString } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { profileErrors } from './profiles.ts';

export const tokenErrors = errorTable<TokenCallError>({
  incorrect_password: { status: 401, description: 'The password is not correct.' },
  incorrect_pin: { status: 401, description: 'The PIN is not correct.' },
  pin_not_set: { status: 400, error: 'incorrect_pin', description: 'No PIN (device password) is set for this device; refresh with the password.' },
  refresh_locked: { status: 401, description: 'Too many failed refresh attempts; log out and sign in again.' },
  token_expired_hard: { status: 401, error: 'invalid_token', description: 'The access token has expired; authorize again.', fields: { token_error: 'token_expired_hard' } },
  token_invalid: { status: 401, error: 'invalid_token', description: 'The access token is no longer valid.', fields: { token_error: 'token_invalid' } },
  credentials_required: { status: 400, error: 'invalid', description: 'Give the password or the PIN.' },
});

const empty = z.object({}).strict();
const refreshInput = z
  .object({
    password: boundedString(passwordCharsMax * 4, 1).optional(),
    pin: boundedString(passwordCharsMax * 4, 1).optional(),
  })
  .strict();

export const tokenRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/token/selectable',
    summary: 'Profiles the authenticated personal profile may select: itself and the businesses it manages.',
    tags: ['tokens'],
    caller: { kind: 'token', permission: 'select_profile' },
    input: empty,
    response: z.strictObject({ profiles: z.array(profile) }),
    async handler({ engine, token }) {
      const { profiles } = engine.services;
      const personal = await profiles.get(engine.sql, token!.personalProfileId);
      const managed = await profiles.managedBy(engine.sql, token!.personalProfileId);
      return { profiles: [...(personal ? [personal] : []), ...managed].map((record) => profiles.toPublic(record)) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/token/select/:profileId',
    summary: 'A token for a profile the authenticated personal profile manages (or the personal profile itself).',
    tags: ['tokens'],
    caller: { kind: 'token', permission: 'select_profile' },
    input: empty,
    response: accessTokenInfo,
    async handler({ engine, token, params, now }) {
      const { profiles, tokens } = engine.services;
      const principal = token!;
      const targetId = params.profileId;
      if (!/^\d{10}$/.test(targetId)) throw httpError(edgeErrors, 'invalid', { invalid: { profile_id: 'must be a profile ID' } });
      // A closed-loop token from POST /p/token cannot widen itself to other profiles.
      if (principal.closedLoopOnly) throw httpError(profileErrors, 'app_denied');
      return engine.sql.begin(async (tx) => {
        const target = await profiles.get(tx, targetId);
        if (!target) throw httpError(profileErrors, 'not_available');
        if (target.id !== principal.personalProfileId && !(await profiles.isManager(tx, target.id, principal.personalProfileId))) {
          throw httpError(profileErrors, 'not_manager');
        }
        if ((await profiles.walletState(tx, target.id)) !== 'active') throw httpError(profileErrors, 'not_available');
        return tokens.issue(tx, {
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
      });
    },
  }),

  defineRoute({
    method: 'post',
    path: '/token/refresh',
    summary: 'A new soft expiration (same hard expiration) for a valid or soft-expired token, with the password or PIN.',
    tags: ['tokens'],
    caller: { kind: 'token', acceptSoftExpired: true },
    input: refreshInput,
    response: accessTokenInfo,
    async handler({ engine, token, input }) {
      if (input.password === undefined && input.pin === undefined) {
        throw httpError(tokenErrors, 'credentials_required', { invalid: { password: 'give the password or the pin' } });
      }
      const result = await engine.services.tokens.refresh(token!, { password: input.password, pin: input.password === undefined ? input.pin : undefined });
      if (!result.ok) throw httpError(tokenErrors, result.error);
      return result.token;
    },
  }),

  defineRoute({
    method: 'post',
    path: '/token/logout',
    summary: 'Ends this token and every token of the same personal profile and app.',
    tags: ['tokens'],
    caller: { kind: 'token', acceptSoftExpired: true },
    input: empty,
    response: emptyResponse,
    async handler({ engine, token }) {
      await engine.services.tokens.logout(token!);
      return {};
    },
  }),
];
