// The OpenAPI 3.1 document, generated from the same route declarations that validate requests:
// request schemas from `input`, 200 answers from `response` (or `rawResponse`), error answers
// from the caller kind plus `errors`, all converted by zod's own z.toJSONSchema. Shared response
// shapes (schemas with an id, api/http/schemas.ts) become components/schemas, referenced by $ref.
import { z } from 'zod';
import type { ErrorStatus } from './errors.ts';
import { errorBody } from './schemas.ts';
import type { Method, RouteDefinition } from './route.ts';

/** The project's license (LICENSE at the top of the repository; package.json names it too). */
export const projectLicense = { name: 'MIT', identifier: 'MIT' } as const;

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

type JsonSchema = Record<string, unknown>;
type Document = Record<string, unknown> & { components: { schemas: Record<string, JsonSchema> } };

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
  service: 'The service itself: this document, health, readiness and metrics.',
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

/** The error statuses a route can answer: by caller kind, path parameters and body, plus the route's own list. */
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
  for (const status of route.errors ?? []) statuses.add(status);
  return [...statuses].sort((left, right) => left - right);
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

function operationOf(document: Document, route: RouteDefinition, method: Method, operationId: string): Record<string, unknown> {
  const schema = convert(document, route.input, 'input');
  const pathParameters = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const responses = successResponses(document, route);
  for (const status of errorStatusesOf(route, method)) responses[String(status)] = { $ref: `#/components/responses/${errorResponses[status].name}` };
  const operation: Record<string, unknown> = {
    operationId,
    summary: route.summary,
    tags: route.tags,
    security: security(route),
    responses,
  };
  if (route.caller.kind === 'token' && route.caller.permission) operation['x-permission'] = route.caller.permission;
  if (route.caller.kind === 'app' && route.caller.appPermission) operation['x-app-permission'] = route.caller.appPermission;
  if (method === 'get' || route.binaryBody) {
    const properties = (schema.properties ?? {}) as Record<string, unknown>;
    const required = new Set<string>((schema.required as string[] | undefined) ?? []);
    operation.parameters = [
      ...pathParameters,
      ...Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property })),
    ];
    if (method !== 'get' && route.binaryBody) {
      const image = { schema: { type: 'string', contentMediaType: 'application/octet-stream' } };
      operation.requestBody = { required: true, content: { 'image/png': image, 'image/jpeg': image, 'image/gif': image, 'application/octet-stream': image } };
    }
  } else {
    operation.parameters = pathParameters;
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
    };
  }
  if ((operation.parameters as unknown[]).length === 0) delete operation.parameters;
  return operation;
}

/** The service's own endpoints (api/server.ts), outside the route declarations. */
function serviceOperations(document: Document): Record<string, Record<string, unknown>> {
  const status = (value: string) => z.strictObject({ status: z.literal(value) });
  const json = (schema: z.ZodType) => jsonContent(convert(document, schema, 'output'));
  const base = { tags: ['service'], security: [] };
  return {
    '/openapi.json': {
      get: {
        ...base,
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI document; servers names the base URL it was served from.',
        responses: { '200': { description: 'The OpenAPI 3.1 document.', content: jsonContent({ type: 'object' }) } },
      },
    },
    '/healthz': {
      get: {
        ...base,
        operationId: 'getHealth',
        summary: 'Liveness: the process answers.',
        responses: { '200': { description: 'Alive.', content: json(status('ok')) } },
      },
    },
    '/readyz': {
      get: {
        ...base,
        operationId: 'getReadiness',
        summary: 'Readiness: the database (and Redis, when used) answer.',
        responses: {
          '200': { description: 'Ready.', content: json(status('ready')) },
          '503': { description: 'Not ready.', content: json(status('unavailable')) },
        },
      },
    },
    '/metrics': {
      get: {
        ...base,
        operationId: 'getMetrics',
        summary: 'Prometheus metrics.',
        responses: { '200': { description: 'Metrics in the Prometheus text format.', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
  };
}

export function buildOpenApi(routes: RouteDefinition[], info: OpenApiInfo): Record<string, unknown> {
  const document: Document = { components: { schemas: {} } };
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  const claim = (id: string) => {
    if (operationIds.has(id)) throw new Error(`OpenAPI: operationId ${id} is used twice`);
    operationIds.add(id);
    return id;
  };
  const usedStatuses = new Set<ErrorStatus>();
  for (const route of routes) {
    const methods: Method[] = route.alsoPost && route.method === 'get' ? ['get', 'post'] : [route.method];
    const key = openApiPath(route.path);
    paths[key] ??= {};
    for (const method of methods) {
      const id = method === route.method ? (route.operationId ?? operationIdOf(route.method, route.path)) : operationIdOf(method, route.path);
      paths[key][method] = operationOf(document, route, method, claim(id));
      for (const status of errorStatusesOf(route, method)) usedStatuses.add(status);
    }
  }
  for (const [path, item] of Object.entries(serviceOperations(document))) {
    paths[path] = item;
    for (const operation of Object.values(item)) claim((operation as { operationId: string }).operationId);
  }
  const errorSchema = convert(document, errorBody, 'output');
  const responses = Object.fromEntries(
    [...usedStatuses].sort((left, right) => left - right).map((status) => [errorResponses[status].name, { description: errorResponses[status].description, content: jsonContent(errorSchema) }]),
  );
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
      responses,
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
