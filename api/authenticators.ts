// Resolves callers for the edge from the engine's services.
// Placeholder until the apps and tokens services land: recognizes nothing.
import type { Engine } from '../engine/engine.ts';
import type { Authenticators } from './http/principals.ts';

export function authenticatorsFor(engine: Engine, operatorKey: string): Authenticators {
  return {
    authenticateToken: async () => ({ ok: false, error: 'token_not_recognized' }),
    authenticateApp: async () => ({ ok: false, error: 'app_not_found' }),
    operatorKey: () => operatorKey,
  };
}
