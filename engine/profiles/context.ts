// What the profiles operations work with: the core, the public URL profile links start with, and the
// lists other domains add to a profile's detail (registered later, so held here); and profile access's.
import type { Core } from '../core.ts';
import type { Queryable } from '../storage/database.ts';
import type { TokensService } from '../tokens/service.ts';
import type { ProfilesService } from './service.ts';

export type ListProvider = (db: Queryable, profileId: string) => Promise<unknown[]>;

export interface ProfilesContext {
  core: Core;
  baseUrl: string;
  holdingsProvider: ListProvider;
  accountsProvider: ListProvider;
}

/** Profile access (access.ts) works through the profiles and tokens services. */
export interface ProfileAccessContext {
  core: Core;
  profiles: ProfilesService;
  tokens: TokensService;
}
