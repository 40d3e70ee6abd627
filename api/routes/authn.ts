// Direct authentication: the start calls (/aa/signup, signin, reset, accept, signin-closed,
// signup-closed), the attempt calls authenticated by the attempt secret, and the captcha site key.
import { z } from 'zod';
import type { AuthnError, AuthnFailure } from '../../engine/authn/errors.ts';
import type { Response } from 'express';
import type { MessageBudget, StartInput } from '../../engine/authn/service.ts';
import {
  authnCodeCharsMax, authnFactorIdCharsMax, captchaResponseCharsMax, countriesMax, defaultCountries, deviceNameCharsMax, flowSubtypeCharsMax,
  idCharsMax, loginCharsMax, passwordFieldCharsMax, permissionNameCharsMax, permissionsMax, signupNameFieldCharsMax,
} from '../../engine/limits.ts';
import { errorTable, httpError, edgeErrors } from '../http/errors.ts';
import { boolField, boundedString, deviceUuidField, stringList } from '../http/fields.ts';
import { defineRoute, messageThrottle, type RouteContext, type RouteDefinition } from '../http/route.ts';
import { authnResult, emptyResponse } from '../http/schemas.ts';

export const authnErrors = errorTable<AuthnError>({
  invalid: edgeErrors.invalid,
  unknown_app: { status: 400, error: 'invalid', description: 'The client_id is not a known app.' },
  captcha_required: { status: 400, description: 'Excessive guessing was detected; solve the captcha and resubmit with g-recaptcha-response.' },
  incorrect_code: { status: 400, error: 'invalid', description: 'The code is not correct.' },
  password_not_matched: { status: 400, error: 'invalid', description: 'The login or the password is not correct.' },
  attempt_gone: { status: 410, error: 'unavailable', description: 'The authentication attempt has expired or is unavailable; start again.' },
  secret_mismatch: { status: 401, error: 'invalid_token', description: 'The attempt secret is not correct.', fields: { token_error: 'token_incorrect' } },
  not_ready: { status: 400, error: 'invalid', description: 'Multi-factor authentication is not complete.' },
  uid_taken: { status: 400, error: 'invalid', description: 'That address belongs to another wallet.' },
  rate_limited: edgeErrors.rate_limited,
});

export function authnFailure(result: AuthnFailure, response?: Response): never {
  if (result.retryAfterSeconds !== undefined) {
    response?.setHeader('retry-after', String(result.retryAfterSeconds));
    throw httpError(authnErrors, result.error, { fields: { retry_after: result.retryAfterSeconds } });
  }
  throw httpError(authnErrors, result.error, { invalid: result.invalid, description: result.description });
}

/** The start call's message budget: per app and client address, and per login when the message goes to it. */
function messageBudget(context: RouteContext<StartFields>, clientId: string): MessageBudget {
  return async (toLogin) => context.engine.rateLimits.consume(messageThrottle(toLogin ? [context.input.login] : [], clientId, context.clientAddress));
}

const countryList = stringList.pipe(z.array(z.string().regex(/^[A-Z]{2}$/, 'must be two-letter uppercase country codes')).max(countriesMax));
const captchaField = boundedString(captchaResponseCharsMax).optional();
const passwordInput = boundedString(passwordFieldCharsMax, 1);

const startInput = z
  .object({
    client_id: boundedString(idCharsMax, 1).optional(),
    device_name: boundedString(deviceNameCharsMax).optional(),
    device_uuid: deviceUuidField,
    login: boundedString(loginCharsMax, 1),
    flow_subtype: boundedString(flowSubtypeCharsMax).optional(),
    countries: countryList.optional(),
    password: passwordInput.optional(),
    invite_id: boundedString(idCharsMax, 1).optional(),
    trust30: boolField.optional(),
    'g-recaptcha-response': captchaField,
    permissions: stringList.pipe(z.array(boundedString(permissionNameCharsMax, 1)).max(permissionsMax)).optional(),
  })
  .strict();
type StartFields = z.output<typeof startInput>;

function deviceName(context: RouteContext<StartFields>): string | null {
  if (context.input.device_name) return context.input.device_name;
  const agent = context.request.get('user-agent');
  return agent ? agent.slice(0, deviceNameCharsMax) : null;
}

function startRoute(intent: StartInput['intent'], summary: string): RouteDefinition {
  const closed = intent === 'signin-closed' || intent === 'signup-closed';
  return defineRoute({
    method: 'post',
    path: `/aa/${intent}`,
    summary,
    tags: ['authentication'],
    caller: closed ? { kind: 'app' } : { kind: 'none' },
    input: startInput,
    response: authnResult,
    errors: intent === 'accept' ? [410, 429] : [429],
    async handler(context) {
      const { input, engine, app } = context;
      const clientId = closed ? app?.clientId : input.client_id;
      if (!clientId) throw httpError(authnErrors, 'invalid', { invalid: { client_id: 'is required' } });
      if (closed && input.client_id && input.client_id !== app?.clientId) throw httpError(authnErrors, 'invalid', { invalid: { client_id: 'does not match the app credentials' } });
      if (intent === 'signin' && input.password === undefined) throw httpError(authnErrors, 'invalid', { invalid: { password: 'is required' } });
      if (intent !== 'signin' && input.password !== undefined) throw httpError(authnErrors, 'invalid', { invalid: { password: 'must not be sent for this intent' } });
      if (intent === 'accept' && !input.invite_id) throw httpError(authnErrors, 'invalid', { invalid: { invite_id: 'is required' } });
      const result = await engine.services.authn.start({
        intent,
        clientId,
        deviceUuid: input.device_uuid,
        deviceName: deviceName(context),
        login: input.login,
        countries: input.countries ?? defaultCountries,
        password: input.password,
        inviteId: intent === 'accept' ? input.invite_id : undefined,
        trust30: input.trust30,
        captcha: intent === 'signin' || intent === 'signin-closed' ? input['g-recaptcha-response'] : undefined,
        permissions: input.permissions ?? null,
        messageBudget: messageBudget(context, clientId),
      });
      return result.ok ? result.result : authnFailure(result, context.response);
    },
  });
}

function attemptRoute<Schema extends z.ZodType>(
  action: string,
  summary: string,
  input: Schema,
  call: (context: RouteContext<z.output<Schema>>, id: string, credential: { secret: string }) => Promise<unknown>,
  response: z.ZodType = authnResult,
  throttle?: RouteDefinition<Schema>['throttle'],
): RouteDefinition {
  return defineRoute({
    method: 'post',
    path: `/aa/:attemptId/${action}`,
    summary,
    tags: ['authentication'],
    caller: { kind: 'attempt' },
    input,
    response,
    throttle,
    async handler(context) {
      const result = (await call(context, context.params.attemptId, { secret: context.attemptSecret! })) as { ok: true; result?: unknown } | AuthnFailure;
      if (!result.ok) return authnFailure(result);
      return result.result ?? {};
    },
  });
}

export const authnRoutes: RouteDefinition[] = [
  startRoute('signup', 'Starts an attempt to create a wallet.'),
  startRoute('signin', 'Starts an attempt to access an existing wallet with its password.'),
  startRoute('reset', 'Starts an attempt to reset a forgotten password.'),
  startRoute('accept', 'Starts an attempt to accept an invitation.'),
  startRoute('signin-closed', 'Starts a one-factor attempt for the closed-loop portion of a wallet (Basic app authentication).'),
  startRoute('signup-closed', 'Starts a one-factor attempt to create a closed-loop wallet (Basic app authentication).'),

  attemptRoute(
    'auth-uid',
    'Proves control of a UID with the code sent to it.',
    z.object({ factor_id: boundedString(authnFactorIdCharsMax, 1), code: boundedString(authnCodeCharsMax, 1), 'g-recaptcha-response': captchaField }).strict(),
    ({ input, engine }, id, credential) => engine.services.authn.authUid(id, credential, { factorId: input.factor_id, code: input.code, captcha: input['g-recaptcha-response'] }),
  ),
  attemptRoute(
    'auth-password',
    'Submits the password of the wallet the login matched.',
    z.object({ password: passwordInput, 'g-recaptcha-response': captchaField }).strict(),
    ({ input, engine }, id, credential) => engine.services.authn.authPassword(id, credential, { password: input.password, captcha: input['g-recaptcha-response'] }),
  ),
  attemptRoute(
    'add-factor',
    'Begins proving another email or phone.',
    z.object({ login: boundedString(loginCharsMax, 1), countries: countryList.optional() }).strict(),
    ({ input, engine }, id, credential) => engine.services.authn.addFactor(id, credential, { login: input.login, countries: input.countries ?? defaultCountries }),
    authnResult,
    ({ input, clientAddress }) => messageThrottle([input.login], null, clientAddress),
  ),
  attemptRoute(
    'set-signup-data',
    'Records the name and/or the password of a new wallet.',
    z.object({ first_name: boundedString(signupNameFieldCharsMax).optional(), last_name: boundedString(signupNameFieldCharsMax).optional(), password: passwordInput.optional() }).strict(),
    ({ input, engine }, id, credential) => engine.services.authn.setSignupData(id, credential, { firstName: input.first_name, lastName: input.last_name, password: input.password }),
  ),
  attemptRoute(
    'signup-finish',
    'Creates the wallet once multi-factor authentication is complete; answers with token and profile.',
    z.object({ agreed: boolField }).strict(),
    ({ input, engine }, id, credential) => engine.services.authn.signupFinish(id, credential, { agreed: input.agreed }),
  ),
  attemptRoute(
    'reset-password',
    'Sets the new password once multi-factor authentication is complete; answers with token and profile.',
    z.object({ password: passwordInput }).strict(),
    ({ input, engine }, id, credential) => engine.services.authn.resetPassword(id, credential, { password: input.password }),
  ),
  attemptRoute(
    'set-trust',
    'Enables or disables trusting this device as a factor for 30 days.',
    z.object({ trust30: boolField, 'g-recaptcha-response': captchaField }).strict(),
    ({ input, engine }, id, credential) => engine.services.authn.setTrust(id, credential, { trust30: input.trust30, captcha: input['g-recaptcha-response'] }),
    emptyResponse,
  ),

  defineRoute({
    method: 'get',
    path: '/aa/recaptcha_invisible_sitekey',
    summary: 'The captcha site key; in sandbox also a captcha_bypass value usable as g-recaptcha-response.',
    tags: ['authentication'],
    caller: { kind: 'none' },
    input: z.object({}).strict(),
    response: z.strictObject({ sitekey: z.string(), captcha_bypass: z.string().optional().describe('sandbox only; usable as g-recaptcha-response') }),
    async handler({ engine }) {
      return engine.services.authn.siteKey();
    },
  }),
];
