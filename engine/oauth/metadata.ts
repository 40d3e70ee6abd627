// RFC 8414 authorization server metadata (GET /.well-known/oauth-authorization-server), so an
// OAuth library configures itself from the issuer URL.
import { knownPermissions } from '../tokens/service.ts';
import type { OauthContext } from './types.ts';

export function metadata(ctx: OauthContext, origin: string): Record<string, unknown> {
  const { config } = ctx.core;
  // Without a configured public URL (development, tests) the issuer is where the request arrived.
  const issuer = config.publicUrlConfigured ? config.publicUrl : origin;
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    response_types_supported: ['code', 'token'],
    response_modes_supported: ['query', 'fragment'],
    grant_types_supported: ['authorization_code', 'implicit'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    scopes_supported: [...knownPermissions],
  };
}
