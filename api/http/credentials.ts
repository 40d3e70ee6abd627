// Reads credentials off a request: bearer tokens (header or access_token), Basic app
// credentials, the attempt secret scheme, and the operator key.
import type { Request } from 'express';

export function readBearerToken(request: Request, params: Record<string, unknown>): string | undefined {
  const header = request.get('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1];
  }
  const fromParams = params.access_token;
  return typeof fromParams === 'string' && fromParams.length > 0 ? fromParams : undefined;
}

export function readBasicCredentials(request: Request): { clientId: string; clientSecret: string } | undefined {
  const header = request.get('authorization');
  const match = header ? /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}

/** `Authorization: service secret="<SECRET>"` (the neutral name of the service's scheme). */
export function readAttemptSecret(request: Request): string | undefined {
  const header = request.get('authorization');
  const match = header ? /^service\s+secret="([^"]+)"\s*$/i.exec(header) : null;
  return match ? match[1] : undefined;
}
