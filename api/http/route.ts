// One declaration per route: its method, path, caller, permission and zod request schema.
// The same declaration validates requests and writes the OpenAPI document.
import type { Express, NextFunction, Request, Response } from 'express';
import { z } from 'zod';
import type { Engine } from '../../engine/engine.ts';
import type { RateBucket } from '../../engine/ratelimits.ts';
import { constantTimeEqual } from '../../engine/ids.ts';
import { imageDecodeSecondsMax } from '../../engine/limits.ts';
import { admitUpload, releaseUpload } from '../../engine/sharp.ts';
import { readAttemptSecret, readBasicCredentials, readBearerToken } from './credentials.ts';
import { edgeErrors, httpError, HttpError } from './errors.ts';
import { checkError, checkResponse } from './response-check.ts';
import type { AppPrincipal, Authenticators, TokenPrincipal } from './principals.ts';
import { authenticationTags, RawResponse, type Caller, type Method, type RouteDefinition } from './route-types.ts';
import { unstorableField } from './text.ts';

export { authenticationTags, RawResponse } from './route-types.ts';
export type { AppCaller, Caller, CallerApp, CallerToken, Method, RouteContext, RouteDefinition, ThrottleContext, TokenCaller } from './route-types.ts';

/** Answers 429 rate_limited with Retry-After. */
export function rateLimited(response: Response, retryAfterSeconds: number): never {
  response.setHeader('retry-after', String(retryAfterSeconds));
  throw httpError(edgeErrors, 'rate_limited', { fields: { retry_after: retryAfterSeconds } });
}

async function throttle(engine: Engine, response: Response, keys: { bucket: RateBucket; key: string }[]): Promise<void> {
  if (keys.length === 0) return;
  const verdict = await engine.rateLimits.consume(keys);
  if (!verdict.ok) rateLimited(response, verdict.retryAfterSeconds);
}

/**
 * The buckets of a call that sends code or invitation messages: one per login it names (spaces,
 * dots, dashes and case aside), its app, and the client address.
 */
export function messageThrottle(logins: (string | null | undefined)[], clientId: string | null | undefined, clientAddress: string): { bucket: RateBucket; key: string }[] {
  const keys: { bucket: RateBucket; key: string }[] = [];
  for (const login of logins) if (login) keys.push({ bucket: 'message_login', key: login.trim().toLowerCase().replace(/[\s().-]/g, '') });
  if (clientId) keys.push({ bucket: 'message_app', key: clientId });
  keys.push({ bucket: 'message_address', key: clientAddress });
  return keys;
}

/** Image uploads (each a decode) are throttled per token. */
export function uploadThrottle({ token }: { token: TokenPrincipal }): { bucket: RateBucket; key: string }[] {
  return [{ bucket: 'image_upload_token', key: token.tokenId }];
}

/**
 * An image upload's work, when this process's decoder queue has room (imageDecodesQueuedMax);
 * past it 429 with Retry-After before the body is looked at.
 */
export async function withUploadRoom<T>(response: Response, work: () => Promise<T>): Promise<T> {
  if (!admitUpload()) rateLimited(response, imageDecodeSecondsMax);
  try {
    return await work();
  } finally {
    releaseUpload();
  }
}

/**
 * A route, its handler typed by its caller kind: a token caller's handler gets a token, an app
 * caller's an app. The list of routes holds them as the general kind, which mountRoutes serves:
 * resolveCaller answers 401 or 403 before a handler runs without the credentials its kind names.
 */
export function defineRoute<Schema extends z.ZodType, C extends Caller>(route: RouteDefinition<Schema, C>): RouteDefinition<Schema> {
  return route as unknown as RouteDefinition<Schema>;
}

const reservedParams = new Set(['version', 'access_token', '__error_ok__']);

function zodInvalid(error: z.ZodError): Record<string, string> {
  const invalid: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'request';
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) invalid[key] ??= 'is not a field of this call';
      continue;
    }
    invalid[field] ??= issue.message === 'Required' || /received undefined/.test(issue.message) ? 'is required' : issue.message;
  }
  return invalid;
}

function gatherParams(request: Request, route: RouteDefinition): Record<string, unknown> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  if (request.method === 'GET' || route.binaryBody) return { ...query };
  const body = request.body;
  if (body === undefined || body === null) return { ...query };
  if (typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body)) {
    throw httpError(edgeErrors, 'malformed_body', { description: 'The request body must be a JSON object or a form.' });
  }
  return { ...query, ...(body as Record<string, unknown>) };
}

async function resolveCaller(route: RouteDefinition, request: Request, params: Record<string, unknown>, authenticators: Authenticators) {
  const caller = route.caller;
  let token: TokenPrincipal | undefined;
  let app: AppPrincipal | undefined;
  let attemptSecret: string | undefined;
  if (caller.kind === 'token') {
    const raw = readBearerToken(request, params);
    if (!raw) throw httpError(edgeErrors, 'missing_token');
    const check = await authenticators.authenticateToken(raw);
    if (!check.ok) throw httpError(edgeErrors, check.error);
    if (check.principal.softExpired && !caller.acceptSoftExpired) throw httpError(edgeErrors, 'token_expired_soft');
    if (caller.permission && !check.principal.permissions.has(caller.permission)) {
      throw httpError(edgeErrors, 'insufficient_scope', { description: `This call needs the ${caller.permission} permission.` });
    }
    token = check.principal;
  } else if (caller.kind === 'app') {
    const credentials = readBasicCredentials(request);
    if (!credentials) throw httpError(edgeErrors, 'missing_app_credentials');
    const check = await authenticators.authenticateApp(credentials.clientId, credentials.clientSecret);
    if (!check.ok) throw httpError(edgeErrors, check.error);
    if (caller.appPermission && !check.app.permissions.has(caller.appPermission)) {
      throw httpError(edgeErrors, 'app_not_permitted', { description: `The app needs the ${caller.appPermission} app permission.` });
    }
    app = check.app;
  } else if (caller.kind === 'attempt') {
    attemptSecret = readAttemptSecret(request);
    if (!attemptSecret) throw httpError(edgeErrors, 'missing_attempt_secret');
  } else if (caller.kind === 'operator') {
    const raw = readBearerToken(request, {});
    if (!raw) throw httpError(edgeErrors, 'operator_unauthorized');
    if (!constantTimeEqual(raw, authenticators.operatorKey())) throw httpError(edgeErrors, 'operator_unauthorized', { description: 'Wrong operator key.' });
  }
  return { token, app, attemptSecret };
}

/** The field schemas of a route's object schema, looking through pipes and wrappers; null when it has none. */
function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | null {
  let current: any = schema;
  for (let depth = 0; current && depth < 8; depth += 1) {
    if (current instanceof z.ZodObject) return current.shape as Record<string, z.ZodType>;
    const def = current.def ?? current._def ?? {};
    current = def.in ?? def.innerType ?? def.schema ?? null;
  }
  return null;
}

/**
 * Real clients send `null` for optional fields they do not use: null counts as absent, unless the
 * field's schema itself takes null (a design field that null clears). Nested objects alike.
 */
export function dropNulls(fields: Record<string, unknown>, schema: z.ZodType | undefined): Record<string, unknown> {
  const shape = objectShape(schema);
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const field = shape?.[key];
    if (value === null) {
      if (field && field.safeParse(null).success) kept[key] = null;
      continue;
    }
    const nested = field ? objectShape(field) : null;
    kept[key] = nested && typeof value === 'object' && !Array.isArray(value) ? dropNulls(value as Record<string, unknown>, field) : value;
  }
  return kept;
}

function splitParams(route: RouteDefinition, params: Record<string, unknown>) {
  const version = params.version === null ? undefined : params.version;
  if (version !== undefined && String(version) !== '1') {
    throw httpError(edgeErrors, 'invalid', { invalid: { version: 'must be 1' } });
  }
  const fields: Record<string, unknown> = {};
  const appdata: Record<string, string> = {};
  for (const [key, value] of Object.entries(params)) {
    if (reservedParams.has(key)) continue;
    if (route.appdata && key.startsWith('appdata.') && key.length > 'appdata.'.length) {
      if (value === null) continue;
      if (typeof value !== 'string') throw httpError(edgeErrors, 'invalid', { invalid: { [key]: 'must be a string' } });
      appdata[key.slice('appdata.'.length)] = value;
      continue;
    }
    fields[key] = value;
  }
  return { fields, appdata };
}

function sendResult(response: Response, result: unknown): void {
  // A streamed answer (a CSV report) was written by its handler.
  if (response.headersSent) return;
  if (result instanceof RawResponse) {
    for (const [name, value] of Object.entries(result.headers)) response.setHeader(name, value);
    if (result.contentType) response.type(result.contentType);
    response.status(result.status).send(result.body);
    return;
  }
  response.status(200).json(result ?? {});
}

export function mountRoutes(app: Express, engine: Engine, authenticators: Authenticators, routes: RouteDefinition[]): void {
  for (const route of routes) {
    const methods: Method[] = route.alsoPost && route.method === 'get' ? ['get', 'post'] : [route.method];
    const handler = async (request: Request, response: Response) => {
      const clientAddress = request.ip ?? request.socket.remoteAddress ?? 'unknown';
      for (const [name, value] of Object.entries(route.headers ?? {})) response.setHeader(name, value);
      if (route.tags.some((tag) => authenticationTags.has(tag))) await throttle(engine, response, [{ bucket: 'authn_address', key: clientAddress }]);
      const params = gatherParams(request, route);
      // NUL and unpaired surrogates cannot be stored (Postgres refuses them): one 400 for every route,
      // before credentials are checked or anything is read.
      const unstorable = unstorableField({ ...params, ...(request.params as Record<string, string>) });
      if (unstorable) throw httpError(edgeErrors, 'invalid', { invalid: { [unstorable.replace(/[^\x20-\x7e]/g, '?')]: 'must not contain NUL characters or unpaired surrogates' } });
      const caller = await resolveCaller(route, request, params, authenticators);
      const { fields, appdata } = splitParams(route, params);
      const parsed = route.input.safeParse(dropNulls(fields, route.input));
      if (!parsed.success) {
        const invalid = zodInvalid(parsed.error);
        throw route.invalidInput ? route.invalidInput(invalid) : httpError(edgeErrors, 'invalid', { invalid });
      }
      if (route.throttle) {
        await throttle(engine, response, route.throttle({ input: parsed.data, params: request.params as Record<string, string>, app: caller.app, token: caller.token, clientAddress }));
      }
      const result = await route.handler({
        input: parsed.data,
        params: request.params as Record<string, string>,
        appdata,
        engine,
        now: engine.clock.now(),
        ...caller,
        request,
        response,
        requestId: response.locals.requestId,
        clientAddress,
      });
      // A raw response (the report's CSV) was written by the handler itself.
      if (result === undefined && response.headersSent) return;
      if (engine.config.checkResponses) checkResponse(route, result);
      sendResult(response, result);
    };
    for (const method of methods) {
      app[method](route.path, (request: Request, response: Response, next: NextFunction) => {
        response.locals.routeKey = `${route.method.toUpperCase()} ${route.path}`;
        handler(request, response).catch((error: unknown) => next(engine.config.checkResponses ? checkError(route, method, error) : error));
      });
    }
  }
}

export { HttpError };
