// The declaration of a route: its method, path, caller, permission, zod request schema and handler
// (api/http/route.ts mounts them and re-exports these). A leaf module, so the OpenAPI writer and the
// response check read declarations without importing route.ts, which imports them.
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { EdgeEngine } from '../../engine/engine.ts';
import type { RateBucket } from '../../engine/ratelimits.ts';
import type { ErrorStatus, HttpError } from './errors.ts';
import type { AppPrincipal, TokenPrincipal } from './principals.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export type Caller =
  | { kind: 'none' }
  | { kind: 'app'; appPermission?: string }
  | { kind: 'token'; permission?: string; acceptSoftExpired?: boolean }
  | { kind: 'attempt' }
  | { kind: 'operator' };

/** A caller kind that presents an access token. */
export type TokenCaller = Extract<Caller, { kind: 'token' }>;
/** A caller kind that presents app credentials. */
export type AppCaller = Extract<Caller, { kind: 'app' }>;

/**
 * The token a route's handler receives: always there when the route declares a token caller (the
 * route refuses a call without a valid one before the handler runs), otherwise perhaps absent.
 */
export type CallerToken<C extends Caller> = C extends TokenCaller ? TokenPrincipal : TokenPrincipal | undefined;
/** The app a route's handler receives: always there when the route declares an app caller. */
export type CallerApp<C extends Caller> = C extends AppCaller ? AppPrincipal : AppPrincipal | undefined;

export interface RouteContext<Input, C extends Caller = Caller> {
  input: Input;
  params: Record<string, string>;
  /** `appdata.<name>` fields of the request, when the route takes them. */
  appdata: Record<string, string>;
  engine: EdgeEngine;
  now: Date;
  token: CallerToken<C>;
  app: CallerApp<C>;
  attemptSecret: string | undefined;
  request: Request;
  response: Response;
  requestId: string;
  /** The client address (the socket's, or X-Forwarded-For from a loopback proxy). */
  clientAddress: string;
}

/** A response that is not a JSON object: a redirect, HTML, CSV or an image. */
export class RawResponse {
  constructor(
    readonly status: number,
    readonly contentType: string | null,
    readonly body: string | Buffer,
    readonly headers: Record<string, string> = {},
  ) {}
  static redirect(location: string): RawResponse {
    return new RawResponse(302, null, '', { location });
  }
}

export interface RouteDefinition<Schema extends z.ZodType = z.ZodType, C extends Caller = Caller> {
  method: Method;
  /** Express path, e.g. /p/:profileId */
  path: string;
  summary: string;
  tags: string[];
  caller: C;
  input: Schema;
  /** Accept `appdata.<name>` fields (at most appdataCharsMax characters in all; the engine checks). */
  appdata?: boolean;
  /** Also answer POST for a GET route (some real clients POST to /wallet/info). */
  alsoPost?: boolean;
  /** The request body is binary (images); the input then sees only the query. */
  binaryBody?: boolean;
  /**
   * The schema of the 200 answer (a zod object; OpenAPI takes it from here). Every route declares
   * one; routes that answer raw bytes (images, CSV, redirects) describe them with `rawResponse`.
   */
  response?: z.ZodType;
  /**
   * For a RawResponse route: the content type(s) it answers with, for the OpenAPI document;
   * `redirect` describes its 302 answer when it also redirects.
   */
  rawResponse?: { contentTypes: string[]; description: string; redirect?: string };
  /** The OpenAPI operationId; derived from the method and path when absent (api/http/openapi.ts). */
  operationId?: string;
  /**
   * Error statuses this route answers besides the ones every route of its caller kind gives
   * (400; 401 and 403 for credentials and permissions; 413, 415 and 503 for calls with a body).
   */
  errors?: ErrorStatus[];
  /**
   * The rate-limit buckets one call takes a point from, once its input is valid (routes that send
   * code or invitation messages: per login, per app, per client address). Spent: 429 and Retry-After.
   */
  throttle?: (context: ThrottleContext<z.output<Schema>, C>) => { bucket: RateBucket; key: string }[];
  /** Headers on every answer of this route, errors included (the OAuth token endpoint's no-store). */
  headers?: Record<string, string>;
  /** How this route reports input that fails its schema (the OAuth token endpoint has its own codes). */
  invalidInput?: (invalid: Record<string, string>) => HttpError;
  handler(context: RouteContext<z.output<Schema>, C>): Promise<unknown>;
}

export interface ThrottleContext<Input, C extends Caller = Caller> {
  input: Input;
  params: Record<string, string>;
  app: CallerApp<C>;
  token: CallerToken<C>;
  /** The client address (the socket's, or X-Forwarded-For from a loopback proxy). */
  clientAddress: string;
}

/** Authentication calls are throttled per client address on every route with these tags. */
export const authenticationTags = new Set(['authentication', 'oauth']);
