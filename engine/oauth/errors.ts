// Named outcomes of the OAuth token endpoint (RFC 6749 5.2); api/routes/oauth.ts maps each once.
export type TokenEndpointError = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope';
