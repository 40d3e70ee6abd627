// The opt-in check that a route answers what its declaration (and so the OpenAPI document) says.
// On when CASHLOOP_CHECK_RESPONSES=1 (the test harness sets it); off by default, so production
// never pays for it. A mismatch answers 500 with the problem in error_description.
import { z } from 'zod';
import { HttpError } from './errors.ts';
import { errorStatusesOf } from './openapi.ts';
import { RawResponse, type Method, type RouteDefinition } from './route-types.ts';
import { errorBody } from './schemas.ts';

function mismatch(route: RouteDefinition, problem: string, method: Method = route.method): HttpError {
  return new HttpError(500, {
    error: 'response_mismatch',
    error_description: `${method.toUpperCase()} ${route.path} answered what its declared response does not describe: ${problem}`,
  });
}

/**
 * An error a route threw, or the mismatch when its status is not among the route's declared error
 * answers (the OpenAPI document's) or its body is not an Error.
 */
export function checkError(route: RouteDefinition, method: Method, error: unknown): unknown {
  if (!(error instanceof HttpError)) return error;
  // 429 and 503 are conditions of the whole edge (rate limits, a busy lock), not of one route.
  const edgeWide = error.status === 429 || error.status === 503;
  if (!edgeWide && !(errorStatusesOf(route, method) as number[]).includes(error.status)) {
    return mismatch(route, `error ${error.status} ${JSON.stringify(error.body)}, a status the route does not declare (add it to errors)`, method);
  }
  const parsed = errorBody.safeParse(error.body);
  if (!parsed.success) return mismatch(route, `an error body that is not an Error: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`, method);
  return error;
}

/** Throws when `result` (what the handler returned) does not match the route's declared answer. */
export function checkResponse(route: RouteDefinition, result: unknown): void {
  if (result instanceof RawResponse) {
    if (!route.rawResponse) throw mismatch(route, 'raw bytes, but the route declares no rawResponse');
    if (result.status === 302 && !route.rawResponse.redirect) throw mismatch(route, 'a redirect, but rawResponse declares none');
    const type = result.contentType?.split(';')[0].trim();
    if (type && !route.rawResponse.contentTypes.includes(type)) throw mismatch(route, `content type ${type}, not one of ${route.rawResponse.contentTypes.join(', ')}`);
    return;
  }
  if (!route.response) throw mismatch(route, 'JSON, but the route declares no response schema');
  // Checked as the client will see it: through JSON, so Dates become strings and undefined keys vanish.
  const body = JSON.parse(JSON.stringify(result ?? {}));
  const parsed = route.response.safeParse(body);
  if (!parsed.success) throw mismatch(route, z.prettifyError(parsed.error).replace(/\n/g, ' '));
}
