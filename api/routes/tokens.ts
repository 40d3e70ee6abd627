// Token calls: selectable profiles, select, refresh (password or PIN) and logout.
import { accessTokenInfo, emptyResponse, profile } from '../http/schemas.ts';
import { z } from 'zod';
import type { TokenCallError } from '../../engine/tokens/errors.ts';
import { passwordFieldCharsMax } from '../../engine/limits.ts';
import { edgeErrors, errorTable, httpError } from '../http/errors.ts';
import { boundedString } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { profileErrors } from './profiles.ts';

export const tokenErrors = errorTable<TokenCallError>({
  incorrect_password: { status: 401, description: 'The password is not correct.' },
  incorrect_pin: { status: 401, description: 'The PIN is not correct.' },
  pin_not_set: { status: 400, error: 'incorrect_pin', description: 'No PIN (device password) is set for this device; refresh with the password.' },
  refresh_locked: { status: 401, description: 'Too many failed refresh attempts; log out and sign in again.' },
  // A refresh meets the token checks of the edge, so it answers them as the edge does.
  token_expired_hard: edgeErrors.token_expired_hard,
  token_invalid: edgeErrors.token_invalid,
  credentials_required: { status: 400, error: 'invalid', description: 'Give the password or the PIN.' },
});

const empty = z.object({}).strict();
const refreshInput = z
  .object({
    password: boundedString(passwordFieldCharsMax, 1).optional(),
    pin: boundedString(passwordFieldCharsMax, 1).optional(),
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
      const records = await engine.services.profileAccess.selectable(token.personalProfileId);
      return { profiles: records.map((record) => engine.services.profiles.toPublic(record)) };
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
      const targetId = params.profileId;
      if (!/^\d{10}$/.test(targetId)) throw httpError(edgeErrors, 'invalid', { invalid: { profile_id: 'must be a profile ID' } });
      const outcome = await engine.services.profileAccess.select(token, targetId, now);
      if (!outcome.ok) throw httpError(profileErrors, outcome.error);
      return outcome.token;
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
      const result = await engine.services.tokens.refresh(token, { password: input.password, pin: input.password === undefined ? input.pin : undefined });
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
      await engine.services.tokens.logout(token);
      return {};
    },
  }),
];
