// The OpenAPI 3.1 document, generated from the same route declarations that validate requests.
import { z } from 'zod';
import type { RouteDefinition } from './route.ts';

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

export function buildOpenApi(routes: RouteDefinition[], info: { title: string; version: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const schema = z.toJSONSchema(route.input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, any>;
    delete schema.$schema;
    const pathParameters = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const operation: Record<string, unknown> = {
      summary: route.summary,
      tags: route.tags,
      security: security(route),
      responses: {
        '200': { description: 'Success' },
        '400': { description: 'InvalidRequest' },
        '401': { description: 'Unauthorized' },
        '403': { description: 'Forbidden' },
      },
    };
    if (route.caller.kind === 'token' && route.caller.permission) operation['x-permission'] = route.caller.permission;
    if (route.caller.kind === 'app' && route.caller.appPermission) operation['x-app-permission'] = route.caller.appPermission;
    if (route.method === 'get' || route.binaryBody) {
      const properties = (schema.properties ?? {}) as Record<string, unknown>;
      const required = new Set<string>(schema.required ?? []);
      operation.parameters = [
        ...pathParameters,
        ...Object.entries(properties).map(([name, property]) => ({ name, in: 'query', required: required.has(name), schema: property })),
      ];
      if (route.binaryBody) {
        operation.requestBody = { required: true, content: { 'image/png': {}, 'image/jpeg': {}, 'image/gif': {}, 'application/octet-stream': {} } };
      }
    } else {
      operation.parameters = pathParameters;
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } },
      };
    }
    const key = openApiPath(route.path);
    paths[key] ??= {};
    paths[key][route.method] = operation;
    if (route.alsoPost && route.method === 'get') paths[key].post = operation;
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      securitySchemes: {
        bearerToken: { type: 'http', scheme: 'bearer', description: 'Access token; also accepted as the access_token parameter.' },
        appBasic: { type: 'http', scheme: 'basic', description: 'client_id:client_secret of the app.' },
        attemptSecret: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'service secret="<SECRET>"' },
        operatorKey: { type: 'http', scheme: 'bearer', description: 'The operator key from DATA_DIR or CASHLOOP_OPERATOR_KEY.' },
      },
    },
  };
}
