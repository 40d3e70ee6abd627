// The Express application: parsers with limits, request ids, logging, metrics, the routes of
// every domain, and one error handler that never leaks a stack trace.
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Engine } from '../engine/engine.ts';
import { contentTypeCharsMax, formParametersMax, imageBodyBytesMax, requestBodyBytesMax, requestIdCharsMax } from '../engine/limits.ts';
import { edgeErrors, httpError, HttpError, outageOf, sendOutage } from './http/errors.ts';
import { requestDeadline } from './http/deadline.ts';
import { buildOpenApi, withServers } from './http/openapi.ts';
import { referenceAsset, referencePage, referencePolicy } from './http/reference-page.ts';
import { operationDocs } from './docs/index.ts';
import type { Authenticators } from './http/principals.ts';
import { mountRoutes, type RouteDefinition } from './http/route.ts';
import { readBearerToken } from './http/credentials.ts';
import { constantTimeEqual } from '../engine/ids.ts';
import { isUnstorableText } from './http/text.ts';
import { CommandTimeoutError } from '../engine/actors/command.ts';
import { allRoutes } from './routes/index.ts';

const jsonTypes = ['application/json', 'application/*+json'];
const formTypes = ['application/x-www-form-urlencoded'];
const imageTypes = ['image/png', 'image/jpeg', 'image/gif', 'application/octet-stream'];

/** Whether the path and the query decode to storable text (percent-encoded UTF-8, no NUL, no lone surrogate). */
function pathAndQueryOk(request: Request): boolean {
  const queryAt = request.url.indexOf('?');
  if (queryAt >= 0 && !formTextOk(request.url.slice(queryAt + 1))) return false;
  try {
    return !isUnstorableText(decodeURIComponent(request.path));
  } catch {
    return false;
  }
}

/**
 * Whether every name and value of a query string or form is percent-encoded UTF-8 without NUL or a
 * lone surrogate. (The parsers would quietly turn bad bytes into U+FFFD; we refuse them instead.)
 */
function formTextOk(text: string): boolean {
  for (const pair of text.split('&')) {
    for (const part of pair.split('=')) {
      try {
        if (isUnstorableText(decodeURIComponent(part.replace(/\+/g, ' ')))) return false;
      } catch {
        return false;
      }
    }
  }
  return true;
}

/** Whether the Content-Type header is short and well-formed (type-is throws on a malformed one). */
function contentTypeOk(request: Request): boolean {
  const header = request.get('content-type');
  if (header === undefined) return true;
  if (header.length > contentTypeCharsMax) return false;
  try {
    request.is('*/*');
    return true;
  } catch {
    return false;
  }
}

function hasBody(request: Request): boolean {
  const length = request.get('content-length');
  return (length !== undefined && length !== '0') || request.get('transfer-encoding') !== undefined;
}

function parseErrorToHttp(error: unknown): HttpError | undefined {
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return httpError(edgeErrors, 'malformed_body', { description: 'The JSON body could not be parsed.' });
  if (type === 'entity.too.large') return httpError(edgeErrors, 'payload_too_large');
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') return httpError(edgeErrors, 'unsupported_media_type');
  if (type === 'parameters.too.many') return httpError(edgeErrors, 'payload_too_large', { description: 'Too many form fields.' });
  // Any other 4xx from a parser or the router (a body whose Content-Encoding does not decode, a
  // path parameter that is not percent-encoded UTF-8) is the client's fault, never a 500.
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return httpError(edgeErrors, 'payload_too_large');
    if (status === 415) return httpError(edgeErrors, 'unsupported_media_type');
    return httpError(edgeErrors, 'malformed_body', { description: 'The request could not be decoded.' });
  }
  return undefined;
}

/** Matches a request path against a route path such as /p/:profileId (a trailing slash allowed). */
function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`);
}

/** Proxies whose X-Forwarded-For is believed (Express's `trust proxy`); the receive feed counts connections by the same client address. */
export const trustedProxies = 'loopback';

export function createApp(engine: Engine, authenticators: Authenticators): express.Express {
  const routes = allRoutes();
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustedProxies);
  app.set('query parser', 'simple');
  useRequestEdges(app, engine);
  useBodyParsers(app, routes);
  mountServiceRoutes(app, engine, authenticators, routes);
  mountRoutes(app, engine, authenticators, routes);
  useNotFound(app, routes);
  useErrorAnswers(app, engine);
  return app;
}

/** Before any route: repeated slashes collapse, every request gets an id, a log line and metrics, and bad paths or content types are refused. */
function useRequestEdges(app: express.Express, engine: Engine): void {
  // The real service's router ignored empty path segments (clients build `attempt_path + '/auth-uid'`
  // from a path that ends in '/'): repeated slashes collapse before routing, never in the query.
  app.use((request: Request, _response: Response, next: NextFunction) => {
    const queryAt = request.url.indexOf('?');
    const path = queryAt < 0 ? request.url : request.url.slice(0, queryAt);
    if (path.includes('//')) request.url = path.replace(/\/{2,}/g, '/') + (queryAt < 0 ? '' : request.url.slice(queryAt));
    next();
  });

  app.use((request: Request, response: Response, next: NextFunction) => {
    const requestId = (request.get('x-request-id') ?? '').slice(0, requestIdCharsMax) || randomUUID();
    response.locals.requestId = requestId;
    response.setHeader('x-request-id', requestId);
    const startedAt = performance.now();
    response.on('finish', () => {
      const route = (response.locals.routeKey as string | undefined) ?? 'unmatched';
      const seconds = (performance.now() - startedAt) / 1000;
      engine.metrics.httpRequests.inc({ method: request.method, route, status: String(response.statusCode) });
      engine.metrics.httpDuration.observe({ method: request.method, route }, seconds);
      if (engine.logger.isInfoEnabled()) engine.logger.info('request', {
        requestId,
        method: request.method,
        path: request.path,
        route,
        status: response.statusCode,
        durationMs: Math.round(seconds * 1000),
      });
    });
    next();
  });

  app.use(requestDeadline(engine.config.requestDeadlineMs, (request, response) => {
    engine.logger.warn('request deadline passed; answered 503', { requestId: response.locals.requestId, path: request.path, deadlineMs: engine.config.requestDeadlineMs });
  }));

  // Bad input is refused once, here, for every route: a path that is not percent-encoded UTF-8 (or
  // decodes to NUL or a lone surrogate), and a Content-Type that is too long or malformed.
  app.use((request: Request, _response: Response, next: NextFunction) => {
    if (!pathAndQueryOk(request)) return next(httpError(edgeErrors, 'invalid', { description: 'The path or query is not valid percent-encoded UTF-8.', invalid: { request: 'the path or query is not valid percent-encoded UTF-8 (or holds NUL)' } }));
    if (!contentTypeOk(request)) return next(httpError(edgeErrors, 'unsupported_media_type', { description: `The Content-Type header is malformed or longer than ${contentTypeCharsMax} characters.` }));
    next();
  });
}

function useBodyParsers(app: express.Express, routes: RouteDefinition[]): void {
  // Bodies: JSON or form everywhere; images only on routes that take them.
  const binaryPatterns = routes.filter((route) => route.binaryBody).map((route) => routePattern(route.path));
  const parseImage = express.raw({ type: () => true, limit: imageBodyBytesMax });
  const parseJson = express.json({ limit: requestBodyBytesMax, strict: true });
  const parseForm = express.urlencoded({
    extended: false,
    limit: requestBodyBytesMax,
    parameterLimit: formParametersMax,
    verify: (_request, _response, bytes) => {
      if (!formTextOk(bytes.toString('latin1'))) throw Object.assign(new Error('The form is not valid percent-encoded UTF-8.'), { status: 400, type: 'form.text.invalid' });
    },
  });
  app.use((request: Request, _response: Response, next: NextFunction) => {
    if (!hasBody(request)) return next();
    const isBinaryRoute = binaryPatterns.some((pattern) => pattern.test(request.path));
    if (isBinaryRoute) {
      if (!request.is(imageTypes)) return next(httpError(edgeErrors, 'unsupported_media_type', { description: 'Send a PNG, JPEG or GIF image.' }));
      return parseImage(request, _response, next);
    }
    if (request.is(jsonTypes)) return parseJson(request, _response, next);
    if (request.is(formTypes)) return parseForm(request, _response, next);
    return next(httpError(edgeErrors, 'unsupported_media_type'));
  });
}

/** /openapi.json, /docs, /healthz, /readyz and /metrics. */
function mountServiceRoutes(app: express.Express, engine: Engine, authenticators: Authenticators, routes: RouteDefinition[]): void {
  const openApi = buildOpenApi(routes, { title: 'Cashloop', version: '1' }, operationDocs);
  app.get('/openapi.json', (request, response) => {
    response.locals.routeKey = 'GET /openapi.json';
    // servers: the configured public URL, else where this request reached us.
    response.json(withServers(openApi, engine.config.publicUrlConfigured ? engine.config.publicUrl : `${request.protocol}://${request.get('host')}`));
  });
  app.get('/docs', (_request, response) => {
    response.locals.routeKey = 'GET /docs';
    response.setHeader('content-security-policy', referencePolicy);
    response.type('html').send(referencePage);
  });
  app.get('/docs/assets/:name', (request, response, next) => {
    response.locals.routeKey = 'GET /docs/assets';
    const asset = referenceAsset(request.params.name);
    if (!asset) return next(httpError(edgeErrors, 'route_not_found'));
    response.setHeader('cache-control', 'public, max-age=3600');
    response.type(asset.contentType).send(asset.body);
  });
  app.get('/healthz', (_request, response) => {
    response.locals.routeKey = 'GET /healthz';
    response.json({ status: 'ok' });
  });
  app.get('/readyz', async (_request, response) => {
    response.locals.routeKey = 'GET /readyz';
    const ready = await engine.ready();
    response.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable' });
  });
  // Metrics tell who calls what and how often: the operator key is required, as on /admin.
  app.get('/metrics', async (request, response) => {
    response.locals.routeKey = 'GET /metrics';
    const key = readBearerToken(request, {});
    if (!key || !constantTimeEqual(key, authenticators.operatorKey())) throw httpError(edgeErrors, 'operator_unauthorized');
    response.type(engine.metrics.registry.contentType).send(await engine.metrics.registry.metrics());
  });
}

function useNotFound(app: express.Express, routes: RouteDefinition[]): void {
  // A path that exists under another method answers 405; anything else 404.
  const matchers = routes.map((route) => ({
    pattern: routePattern(route.path),
    methods: route.alsoPost && route.method === 'get' ? ['GET', 'HEAD', 'POST'] : route.method === 'get' ? ['GET', 'HEAD'] : [route.method.toUpperCase()],
  }));
  app.use((request: Request, response: Response, next: NextFunction) => {
    const allowed = matchers.filter((matcher) => matcher.pattern.test(request.path)).flatMap((matcher) => matcher.methods);
    if (allowed.length > 0) {
      response.setHeader('allow', [...new Set(allowed)].join(', '));
      return next(httpError(edgeErrors, 'method_not_allowed'));
    }
    next(httpError(edgeErrors, 'route_not_found'));
  });
}

/** Named errors answer with the spec's error body; an outage (database, locks, a deadline) 503 with Retry-After; anything else is a logged 500. */
function useErrorAnswers(app: express.Express, engine: Engine): void {
  app.use((error: unknown, request: Request, response: Response, _next: NextFunction) => {
    const where = { requestId: response.locals.requestId, path: request.path };
    // The request deadline answered already (or a stream had begun): the late outcome is only logged.
    if (response.headersSent) {
      if (!outageOf(error)) engine.logger.error('error after the answer began', { ...where, error });
      // A streamed answer cut short ends abnormally, so the client does not wait for the rest.
      if (!response.writableEnded) response.destroy();
      return;
    }
    const failure = error instanceof HttpError ? error : parseErrorToHttp(error);
    if (failure) {
      const errorOk = '__error_ok__' in ((request.query ?? {}) as object) || (request.body && typeof request.body === 'object' && !Buffer.isBuffer(request.body) && '__error_ok__' in request.body);
      response.status(failure.status === 400 && errorOk ? 200 : failure.status).json(failure.body);
      return;
    }
    // The database or Redis out of reach, or a command stuck past its deadline: try again shortly.
    const outage = outageOf(error);
    if (outage) {
      if (error instanceof CommandTimeoutError) engine.logger.error('command timed out; its locks were released', { ...where, command: error.command });
      else engine.logger.warn('dependency unavailable', { ...where, outage, code: (error as { code?: unknown }).code, error: (error as Error).message });
      sendOutage(response, outage);
      return;
    }
    engine.logger.error('unhandled error', { ...where, error });
    response.status(500).json({ error: 'internal_error', error_description: 'The service failed to handle this request.' });
  });
}
