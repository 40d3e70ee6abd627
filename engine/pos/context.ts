// What every point-of-sale operation works with: the core and the services it reads profiles and
// transfers through. Settlements need only the core.
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TransferQueries } from '../transfers/queries.ts';

export interface PosDependencies {
  profiles: ProfilesService;
  queries: TransferQueries;
}

export interface PosContext extends PosDependencies {
  core: Core;
}

export type SettlementsContext = Pick<PosContext, 'core'>;
