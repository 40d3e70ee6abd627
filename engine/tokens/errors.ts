// Named outcomes of token calls (mapped to HTTP once, in api/routes/tokens.ts).
import type { RefreshError } from './service.ts';

export type TokenCallError = RefreshError | 'credentials_required';
