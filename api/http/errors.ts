// Errors at the HTTP edge. Each domain maps its named error codes with errorTable(), typed so
// that a code without a mapping does not compile; handlers throw the mapped HttpError.
import type { Response } from 'express';
import { unavailableRetryAfterSeconds } from '../../engine/limits.ts';
import { outageOf as engineOutageOf, type Outage } from '../../engine/outages.ts';

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 429 | 503;

export interface ErrorMapping {
  status: ErrorStatus;
  /** The wire `error` value; the code itself when absent. */
  error?: string;
  description: string;
  /** Extra fixed body fields, such as token_error. */
  fields?: Record<string, string>;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.error_description ?? body.error));
  }
}

export function errorTable<Code extends string>(table: Record<Code, ErrorMapping>): Record<Code, ErrorMapping> {
  return table;
}

export interface ErrorExtras {
  description?: string;
  invalid?: Record<string, string>;
  fields?: Record<string, unknown>;
}

export function httpError<Code extends string>(table: Record<Code, ErrorMapping>, code: Code, extras: ErrorExtras = {}): HttpError {
  const mapping = table[code];
  const body: Record<string, unknown> = {
    error: mapping.error ?? code,
    error_description: extras.description ?? mapping.description,
    ...mapping.fields,
    ...extras.fields,
  };
  if (extras.invalid) body.invalid = extras.invalid;
  return new HttpError(mapping.status, body);
}

/** Errors of the edge itself: parsing, routing, credentials, permissions. */
export type EdgeError =
  | 'invalid'
  | 'malformed_body'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'route_not_found'
  | 'method_not_allowed'
  | 'missing_token'
  | 'token_not_recognized'
  | 'token_expired_soft'
  | 'token_expired_hard'
  | 'token_invalid'
  | 'app_not_found'
  | 'app_credentials_changed'
  | 'missing_app_credentials'
  | 'missing_attempt_secret'
  | 'operator_unauthorized'
  | 'insufficient_scope'
  | 'app_not_permitted'
  | 'lock_unavailable'
  | 'lock_lost'
  | 'database_unavailable'
  | 'command_deadline'
  | 'request_deadline'
  | 'rate_limited';

const tokenError = (tokenErrorCode: string, description: string): ErrorMapping => ({
  status: 401,
  error: 'invalid_token',
  description,
  fields: { token_error: tokenErrorCode },
});

export const edgeErrors = errorTable<EdgeError>({
  invalid: { status: 400, description: 'The request is not valid.' },
  malformed_body: { status: 400, error: 'invalid', description: 'The request body could not be parsed.' },
  unsupported_media_type: { status: 415, error: 'invalid', description: 'Send application/json or application/x-www-form-urlencoded.' },
  payload_too_large: { status: 413, error: 'invalid', description: 'The request body is too large.' },
  route_not_found: { status: 404, error: 'not_found', description: 'No such endpoint.' },
  method_not_allowed: { status: 405, error: 'method_not_allowed', description: 'This endpoint does not accept that method.' },
  missing_token: tokenError('missing_token', 'An access token is required.'),
  token_not_recognized: tokenError('token_not_recognized', 'The access token is not recognized.'),
  token_expired_soft: tokenError('token_expired_soft', 'The access token has expired; refresh it.'),
  token_expired_hard: tokenError('token_expired_hard', 'The access token has expired; authorize again.'),
  token_invalid: tokenError('token_invalid', 'The access token is no longer valid.'),
  app_not_found: tokenError('app_not_found', 'The app credentials are not recognized.'),
  app_credentials_changed: tokenError('app_credentials_changed', 'The app credentials are not valid.'),
  missing_app_credentials: tokenError('app_not_found', 'Basic app authentication is required.'),
  missing_attempt_secret: { status: 401, error: 'invalid_token', description: 'The attempt secret is required.', fields: { token_error: 'missing_token' } },
  operator_unauthorized: { status: 401, error: 'invalid_token', description: 'The operator key is required.', fields: { token_error: 'token_incorrect' } },
  insufficient_scope: { status: 403, description: 'The access token does not carry the permission this call needs.' },
  app_not_permitted: { status: 403, error: 'app_denied', description: 'The app does not have the permission this call needs.' },
  lock_unavailable: { status: 503, error: 'busy', description: 'The service is busy; try again.' },
  lock_lost: { status: 503, error: 'busy', description: 'The request lost its lock before it could commit and changed nothing; try again with the same dedup_id.' },
  database_unavailable: { status: 503, error: 'busy', description: 'The database went out of reach during the request; try again with the same dedup_id (a retry answers the original transfer if it was made).' },
  command_deadline: { status: 503, error: 'busy', description: 'The request did not finish within its deadline; try again with the same dedup_id (a retry answers the original transfer if it was made).' },
  request_deadline: { status: 503, error: 'busy', description: 'The request did not finish within its deadline; try again with the same dedup_id (a retry answers the original transfer if it was made).' },
  rate_limited: { status: 429, error: 'rate_limited', description: 'Too many requests; try again after Retry-After seconds.' },
});

/** The edge errors that say a dependency (the database, Redis) or a deadline failed the request: 503 busy with Retry-After. */
export type OutageError = Extract<EdgeError, Outage | 'request_deadline'>;

/** The outage an error reports (engine/outages.ts), or null when it is none (then it is a named error or a bug). */
export function outageOf(error: unknown): OutageError | null {
  return engineOutageOf(error);
}

/** Answers an outage: 503 busy, the spec's error body, Retry-After (unavailableRetryAfterSeconds). */
export function sendOutage(response: Response, outage: OutageError): void {
  const failure = httpError(edgeErrors, outage);
  response.setHeader('retry-after', String(unavailableRetryAfterSeconds));
  response.status(failure.status).json(failure.body);
}
