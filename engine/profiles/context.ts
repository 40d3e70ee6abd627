// What the profiles operations work with (their types live in the leaf types.ts, re-exported here),
// and profile access's context, which also holds the tokens service.
import type { Core } from '../core.ts';
import type { TokensService } from '../tokens/types.ts';
import type { ProfilesService } from './types.ts';

export type { ListProvider, ProfilesContext } from './types.ts';

/** Profile access (access.ts) works through the profiles and tokens services. */
export interface ProfileAccessContext {
  core: Core;
  profiles: ProfilesService;
  tokens: TokensService;
}
