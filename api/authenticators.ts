// Resolves callers for the edge from the engine's services: access tokens, app credentials and
// the operator key.
import type { Engine } from '../engine/engine.ts';
import type { Authenticators } from './http/principals.ts';

export function authenticatorsFor(engine: Engine, operatorKey: string): Authenticators {
  const { apps, tokens } = engine.services;
  return {
    authenticateToken: (token) => tokens.authenticate(token),
    authenticateApp: (clientId, clientSecret) => apps.authenticate(clientId, clientSecret),
    operatorKey: () => operatorKey,
  };
}
