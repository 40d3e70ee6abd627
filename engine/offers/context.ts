// What every offer operation runs with: the core, the services it calls and the search, built
// once by createOffersService and passed first to each operation.
import type { CommandRunner } from '../actors/command.ts';
import type { AppsService } from '../apps/service.ts';
import type { Core } from '../core.ts';
import type { LedgerDomain } from '../ledger/domain.ts';
import type { MessagesService } from '../messages/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Sql } from '../storage/database.ts';
import type { TokensService } from '../tokens/service.ts';
import { createOfferSearch } from './search.ts';

export interface OffersDependencies {
  profiles: ProfilesService;
  tokens: TokensService;
  apps: AppsService;
  messages: MessagesService;
  ledger: LedgerDomain;
}

export interface OffersContext extends OffersDependencies {
  core: Core;
  sql: Sql;
  commands: CommandRunner;
  /** Read at each use, as the config says now. */
  publicUrl: () => string;
  search: ReturnType<typeof createOfferSearch>;
}

export function offersContext(core: Core, dependencies: OffersDependencies): OffersContext {
  const { profiles, tokens, apps, messages, ledger } = dependencies;
  const publicUrl = () => core.config.publicUrl;
  const search = createOfferSearch(core, { profiles, publicUrl });
  return { core, sql: core.sql, commands: core.commands, profiles, tokens, apps, messages, ledger, publicUrl, search };
}
