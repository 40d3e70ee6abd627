// The OpenAPI 3.1 document, generated from the same route declarations that validate requests:
// request schemas from `input`, 200 answers from `response` (or `rawResponse`), error answers
// from the caller kind plus `errors`, all converted by zod's own z.toJSONSchema. Shared response
// shapes (schemas with an id, api/http/schemas.ts) become components/schemas, referenced by $ref.
import { z } from 'zod';
import { edgeErrors, type ErrorStatus } from './errors.ts';
import type { NamedError, OperationDoc, OperationDocs } from './operation-docs.ts';
import { errorBody } from './schemas.ts';
import { authenticationTags, type Method, type RouteDefinition } from './route-types.ts';

/** The project's license (LICENSE at the top of the repository; package.json names it too). */
export const projectLicense = { name: 'MIT', identifier: 'MIT' } as const;

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

type JsonSchema = Record<string, unknown>;
type Document = Record<string, unknown> & { components: { schemas: Record<string, JsonSchema> }; errorSchema: JsonSchema };

const tagDescriptions: Record<string, string> = {
  authentication: 'Direct authentication attempts (sign-up, sign-in, reset, invitation acceptance).',
  invitations: 'Invitations to join, sent by server apps.',
  tokens: 'Access tokens: select, refresh, log out.',
  oauth: 'The OAuth 2.0 authorization endpoint and token endpoint.',
  wallet: 'The wallet: information, search, sending and receiving cash.',
  transfers: 'Transfer history, sync, detail and the calls that change a waiting transfer.',
  designs: 'Cash designs, distribution plans, network agreements and redeemers.',
  'profile access': 'Profiles for server apps (Basic app authentication).',
  settings: 'Settings of the wallet: UIDs, passwords, name, image.',
  admin: 'The operator API (operator key), driven by the CLI.',
  service: 'The service itself: this document, its HTML reference, health, readiness and metrics.',
  offers: 'Offers businesses publish and people accept: find, create, edit, close, accept, sign up and accept.',
  processor: 'Payment processors acting for a sender that granted them a processor token.',
  pull: 'Pull payments: a merchant terminal takes brand cash from a consenting customer.',
  report: 'The received-and-receivable report of a merchant, in JSON or CSV.',
  'fund proxy': 'ACH funding proxies: money arriving on an account number becomes cash in a wallet.',
  campaigns: 'Campaign events of designs: returns and expirations of brand cash.',
  webhooks: 'Webhooks: signed HTTP callbacks when a transfer changes state.',
};

/** Abbreviated first path segments spelled out in operationIds. */
const segmentWords: Record<string, string> = { t: 'transfer', aa: 'attempt', ai: 'invitation', p: 'profile', o: 'offer' };

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('');
}

/**
 * The method, then the path's words: abbreviated first segments spelled out (t -> transfer),
 * path parameters left out except a last one, which reads By<Name>. GET /wallet/info ->
 * getWalletInfo, POST /t/:transferId/retract -> postTransferRetract, GET /design/:designId ->
 * getDesignByDesignId.
 */
export function operationIdOf(method: Method, path: string): string {
  const segments = path.split('/').filter(Boolean);
  const words = segments.map((segment, index) => {
    if (segment.startsWith(':')) return index === segments.length - 1 ? `By${pascal(segment.slice(1))}` : '';
    return pascal(index === 0 ? (segmentWords[segment] ?? segment) : segment);
  });
  return method + words.join('');
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function security(route: RouteDefinition): Record<string, string[]>[] {
  switch (route.caller.kind) {
    case 'token':
      return [{ bearerToken: [] }];
    case 'app':
      return [{ appBasic: [] }];
    case 'attempt':
      return [{ attemptSecret: [] }];
    case 'operator':
      return [{ operatorKey: [] }];
    default:
      return [];
  }
}

const errorResponses: Record<ErrorStatus, { name: string; description: string }> = {
  400: { name: 'BadRequest', description: 'InvalidRequest: the input is not valid (see invalid), or the call cannot be done (error names why).' },
  401: { name: 'Unauthorized', description: 'The credential is missing, unknown, expired or wrong (error invalid_token, see token_error).' },
  403: { name: 'Forbidden', description: 'The credential is valid but may not do this (insufficient_scope, app_denied, not_manager, ...).' },
  404: { name: 'NotFound', description: 'No such resource.' },
  405: { name: 'MethodNotAllowed', description: 'The path does not take this method.' },
  409: { name: 'Conflict', description: 'The resource is in a state that does not allow this.' },
  410: { name: 'Gone', description: 'The authentication attempt or invitation has expired or is unavailable.' },
  413: { name: 'PayloadTooLarge', description: 'The request body is too large.' },
  415: { name: 'UnsupportedMediaType', description: 'The request body is not of an accepted media type.' },
  429: { name: 'TooManyRequests', description: 'Too many requests; slow down and retry later.' },
  503: { name: 'ServiceUnavailable', description: 'The service is busy or a dependency is unavailable; try again.' },
};

/** A call that can answer 429: it takes rate-limit points (its own buckets, or the authentication address bucket). */
export function isThrottled(route: RouteDefinition): boolean {
  return Boolean(route.throttle) || route.tags.some((tag) => authenticationTags.has(tag));
}

/** The error statuses a route can answer: by caller kind, path parameters, body and throttling, plus the route's own list. */
export function errorStatusesOf(route: RouteDefinition, method: Method): ErrorStatus[] {
  const statuses = new Set<ErrorStatus>([400]);
  const { caller } = route;
  if (caller.kind !== 'none') statuses.add(401);
  if ((caller.kind === 'token' && caller.permission) || (caller.kind === 'app' && caller.appPermission)) statuses.add(403);
  if (caller.kind === 'attempt') statuses.add(410);
  // A path parameter names something that may not exist (attempts and invitations answer 410 instead).
  if (route.path.includes(':') && caller.kind !== 'attempt') statuses.add(404);
  if (method !== 'get') {
    statuses.add(413);
    statuses.add(415);
    statuses.add(503);
  }
  if (isThrottled(route)) statuses.add(429);
  for (const status of route.errors ?? []) statuses.add(status);
  return [...statuses].sort((left, right) => left - right);
}

const edge = (...codes: (keyof typeof edgeErrors)[]): NamedError[] => codes.map((code) => ({ code, mapping: edgeErrors[code] }));

/** The edge's own errors a route may answer: input, credentials, permissions, body limits, busy, rate limits. */
export function edgeErrorsOf(route: RouteDefinition, method: Method, domain: NamedError[]): NamedError[] {
  const errors = edge('invalid');
  const { caller } = route;
  if (method !== 'get') errors.push(...edge('malformed_body', 'payload_too_large', 'unsupported_media_type', 'lock_unavailable', 'database_unavailable'));
  if (caller.kind === 'token') {
    errors.push(...edge('missing_token', 'token_not_recognized', 'token_expired_hard', 'token_invalid'));
    if (!caller.acceptSoftExpired) errors.push(...edge('token_expired_soft'));
    if (caller.permission) errors.push(...edge('insufficient_scope'));
  }
  if (caller.kind === 'app') {
    errors.push(...edge('missing_app_credentials', 'app_not_found', 'app_credentials_changed'));
    if (caller.appPermission) errors.push(...edge('app_not_permitted'));
  }
  if (caller.kind === 'attempt') errors.push(...edge('missing_attempt_secret'));
  if (caller.kind === 'operator') errors.push(...edge('operator_unauthorized'));
  // A path whose parameter matches nothing, when the route names no 404 of its own.
  if (route.path.includes(':') && !domain.some((error) => error.mapping.status === 404)) errors.push(...edge('route_not_found'));
  if (isThrottled(route)) errors.push(...edge('rate_limited'));
  return errors;
}

/** The wire `error` of a named error, with its token_error when it has one: `invalid_token` (token_error `missing_token`). */
export function wireCodeOf(error: NamedError): string {
  const tokenError = error.mapping.fields?.token_error;
  return `\`${error.mapping.error ?? error.code}\`${tokenError ? ` (token_error \`${tokenError}\`)` : ''}`;
}

/** Markdown lines, one per wire code, each with every meaning it carries on this operation. */
function codeLines(errors: NamedError[]): string[] {
  const meanings = new Map<string, Set<string>>();
  for (const error of errors) {
    const key = wireCodeOf(error);
    if (!meanings.has(key)) meanings.set(key, new Set());
    meanings.get(key)!.add(error.mapping.description);
  }
  return [...meanings].map(([key, texts]) => `- ${key}: ${[...texts].join(' Or: ')}`);
}

/** One error answer: what the status means here, the codes it may carry (also as x-error-codes), Retry-After on 429. */
function errorResponse(document: Document, status: ErrorStatus, errors: NamedError[]): Record<string, unknown> {
  const codes = [...new Set(errors.map((error) => error.mapping.error ?? error.code))];
  const response: Record<string, unknown> = {
    description: [`${errorResponses[status].description} The error may be:`, '', ...codeLines(errors)].join('\n'),
    'x-error-codes': codes,
    content: jsonContent(document.errorSchema),
  };
  if (status === 429) {
    response.headers = { 'Retry-After': { description: 'Seconds to wait before the next call is allowed.', schema: { type: 'integer', minimum: 1 } } };
  }
  return response;
}

/** Converts a zod schema; schemas with an id go to components/schemas (the same id must mean the same schema). */
function convert(document: Document, schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete converted.$schema;
  const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
  delete converted.$defs;
  const relink = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/'));
  for (const [id, definition] of Object.entries(defs)) {
    const linked = relink(definition);
    const known = document.components.schemas[id];
    if (known && JSON.stringify(known) !== JSON.stringify(linked)) throw new Error(`OpenAPI: two different schemas are named ${id}`);
    document.components.schemas[id] = linked;
  }
  return relink(converted);
}

function jsonContent(schema: JsonSchema): Record<string, unknown> {
  return { 'application/json': { schema } };
}

function successResponses(document: Document, route: RouteDefinition): Record<string, unknown> {
  if (route.rawResponse) {
    const content = Object.fromEntries(
      route.rawResponse.contentTypes.map((type) => [type, { schema: type.startsWith('text/') ? { type: 'string' } : { type: 'string', contentMediaType: type } }]),
    );
    const responses: Record<string, unknown> = { '200': { description: route.rawResponse.description, content } };
    if (route.rawResponse.redirect) {
      responses['302'] = { description: route.rawResponse.redirect, headers: { Location: { description: 'Where the browser goes next.', schema: { type: 'string' } } } };
    }
    return responses;
  }
  // A route without a declared answer is a gap test/openapi-lint.test.ts reports; it does not stop the server.
  if (!route.response) return { '200': { description: 'Success (no response schema declared yet).' } };
  return { '200': { description: 'Success.', content: jsonContent(convert(document, route.response, 'output')) } };
}

/** The error answers of an operation, each with the codes it may carry. */
function errorResponsesOf(document: Document, route: RouteDefinition, method: Method, doc: OperationDoc | undefined): Record<string, unknown> {
  const domain = doc?.errors ?? [];
  const errors = [...edgeErrorsOf(route, method, domain), ...domain];
  const statuses = new Set<ErrorStatus>([...errorStatusesOf(route, method), ...domain.map((error) => error.mapping.status)]);
  const responses: Record<string, unknown> = {};
  for (const status of [...statuses].sort((left, right) => left - right)) {
    const page = doc?.pages?.[status];
    if (page) {
      responses[String(status)] = { description: page, content: { 'text/html': { schema: { type: 'string' } } } };
      continue;
    }
    responses[String(status)] = errorResponse(document, status, errors.filter((error) => error.mapping.status === status));
  }
  return responses;
}

function operationOf(document: Document, route: RouteDefinition, method: Method, operationId: string, doc: OperationDoc | undefined): Record<string, unknown> {
  const schema = convert(document, route.input, 'input');
  const example = doc?.example ?? {};
  const withExample = (name: string, parameter: Record<string, unknown>) => (name in example ? { ...parameter, example: example[name] } : parameter);
  const pathNames = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]);
  const pathParameters = pathNames.map((name) => withExample(name, { name, in: 'path', required: true, schema: { type: 'string' } }));
  const responses = { ...successResponses(document, route), ...errorResponsesOf(document, route, method, doc) };
  const operation: Record<string, unknown> = {
    operationId,
    summary: route.summary,
    tags: route.tags,
    security: security(route),
    responses,
  };
  if (doc) {
    operation.description = doc.description;
    // The whole example request (path parameters and fields), also spread over parameters and body below.
    operation['x-request-example'] = doc.example;
  }
  if (route.caller.kind === 'token' && route.caller.permission) operation['x-permission'] = route.caller.permission;
  if (route.caller.kind === 'app' && route.caller.appPermission) operation['x-app-permission'] = route.caller.appPermission;
  if (method === 'get' || route.binaryBody) {
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    const required = new Set<string>((schema.required as string[] | undefined) ?? []);
    operation.parameters = [
      ...pathParameters,
      ...Object.entries(properties).map(([name, property]) => withExample(name, { name, in: 'query', required: required.has(name), schema: property })),
    ];
    if (method !== 'get' && route.binaryBody) {
      const image = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };
      operation.requestBody = { required: true, content: { 'image/png': image, 'image/jpeg': image, 'image/gif': image, 'application/octet-stream': image } };
    }
  } else {
    operation.parameters = pathParameters;
    const body = Object.fromEntries(Object.entries(example).filter(([name]) => !pathNames.includes(name)));
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema, example: body }, 'application/x-www-form-urlencoded': { schema } },
    };
  }
  if ((operation.parameters as unknown[]).length === 0) delete operation.parameters;
  return operation;
}

/** The service's own endpoints (api/server.ts), outside the route declarations. */
function serviceOperations(document: Document): Record<string, Record<string, unknown>> {
  const status = (value: string) => z.strictObject({ status: z.literal(value) });
  const json = (schema: z.ZodType) => jsonContent(convert(document, schema, 'output'));
  const open = { tags: ['service'], security: [] };
  const example = { 'x-request-example': {} };
  return {
    '/openapi.json': {
      get: {
        ...open,
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document; servers names the base URL it was served from.',
        description: 'The OpenAPI 3.1 document of every call, written at start-up from the same route declarations that validate requests. No credentials.',
        ...example,
        responses: { '200': { description: 'The OpenAPI 3.1 document.', content: jsonContent({ type: 'object' }) } },
      },
    },
    '/docs': {
      get: {
        ...open,
        operationId: 'getApiReference',
        summary: 'This document as a readable HTML reference (Swagger UI, served offline).',
        description: 'An HTML page that renders /openapi.json with Swagger UI; its script and styles are served by this server under /docs/assets, so it works without the internet. No credentials.',
        ...example,
        responses: { '200': { description: 'The HTML reference.', content: { 'text/html': { schema: { type: 'string' } } } } },
      },
    },
    '/healthz': {
      get: {
        ...open,
        operationId: 'getHealth',
        summary: 'Liveness: the process answers.',
        description: 'Answers as long as the process runs, without touching the database. No credentials.',
        ...example,
        responses: { '200': { description: 'Alive.', content: json(status('ok')) } },
      },
    },
    '/readyz': {
      get: {
        ...open,
        operationId: 'getReadiness',
        summary: 'Readiness: the database (and Redis, when used) answer.',
        description: 'Ready when the database, and Redis when it is configured, answer; 503 while they do not. No credentials.',
        ...example,
        responses: {
          '200': { description: 'Ready.', content: json(status('ready')) },
          '503': { description: 'Not ready.', content: json(status('unavailable')) },
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['service'],
        security: [{ operatorKey: [] }],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (operator key).',
        description: 'Request counts and durations per route, and the engine\'s own gauges, in the Prometheus text format. They tell who calls what, so the operator key is required, as on /admin.',
        ...example,
        responses: {
          '200': { description: 'Metrics in the Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } },
          '401': errorResponse(document, 401, edge('operator_unauthorized')),
        },
      },
    },
  };
}

export function buildOpenApi(routes: RouteDefinition[], info: OpenApiInfo, docs: OperationDocs = {}): Record<string, unknown> {
  const document: Document = { components: { schemas: {} }, errorSchema: {} };
  document.errorSchema = convert(document, errorBody, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  const claim = (id: string) => {
    if (operationIds.has(id)) throw new Error(`OpenAPI: operationId ${id} is used twice`);
    operationIds.add(id);
    return id;
  };
  for (const route of routes) {
    const methods: Method[] = route.alsoPost && route.method === 'get' ? ['get', 'post'] : [route.method];
    const key = openApiPath(route.path);
    paths[key] ??= {};
    for (const method of methods) {
      const id = method === route.method ? (route.operationId ?? operationIdOf(route.method, route.path)) : operationIdOf(method, route.path);
      // The POST alias of a GET route shares the route's documentation.
      const doc = docs[route.operationId ?? operationIdOf(route.method, route.path)];
      paths[key][method] = operationOf(document, route, method, claim(id), doc);
    }
  }
  for (const [path, item] of Object.entries(serviceOperations(document))) {
    paths[path] = item;
    for (const operation of Object.values(item)) claim((operation as { operationId: string }).operationId);
  }
  const usedTags = [...new Set(Object.values(paths).flatMap((item) => Object.values(item).flatMap((operation) => (operation as { tags: string[] }).tags)))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: info.description ?? 'The Wallet and Cash Network Service interface, as Cashloop serves it.',
      license: projectLicense,
    },
    tags: usedTags.map((name) => ({ name, description: tagDescriptions[name] ?? name })),
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(document.components.schemas).sort(([left], [right]) => left.localeCompare(right))),
      securitySchemes: {
        bearerToken: { type: 'http', scheme: 'bearer', description: 'Access token; also accepted as the access_token parameter.' },
        appBasic: { type: 'http', scheme: 'basic', description: 'client_id:client_secret of the app.' },
        attemptSecret: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'service secret="<SECRET>"' },
        operatorKey: { type: 'http', scheme: 'bearer', description: 'The operator key from DATA_DIR or CASHLOOP_OPERATOR_KEY.' },
      },
    },
  };
}

/** The document as served: `servers` names the base URL it is served from. */
export function withServers(document: Record<string, unknown>, baseUrl: string): Record<string, unknown> {
  return { ...document, servers: [{ url: baseUrl.replace(/\/+$/, ''), description: 'This Cashloop server.' }] };
}
