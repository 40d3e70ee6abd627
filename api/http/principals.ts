// Who is calling: the principals the edge resolves before a handler runs. The shapes live with
// their domains (engine/tokens, engine/apps) and are re-exported here for the edge.
import type { AppCheck, AppPrincipal } from '../../engine/apps/service.ts';
import type { TokenCheck, TokenPrincipal } from '../../engine/tokens/service.ts';

export type { AppCheck, AppPrincipal, TokenCheck, TokenPrincipal };

/** What the edge needs from the engine to resolve callers. */
export interface Authenticators {
  authenticateToken(token: string): Promise<TokenCheck>;
  authenticateApp(clientId: string, clientSecret: string): Promise<AppCheck>;
  operatorKey(): string;
}
