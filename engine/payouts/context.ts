// What every payouts operation works with: the core, the services it calls, and the bank connector
// (held here, not in a closure, because setConnector replaces it at run time).
import type { Core } from '../core.ts';
import type { LedgerService } from '../ledger/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TransfersService } from '../transfers/service.ts';
import type { BankConnector } from './connector.ts';

export interface PayoutsDependencies {
  profiles: ProfilesService;
  ledger: LedgerService;
  transfers: TransfersService;
}

export interface PayoutsContext extends PayoutsDependencies {
  core: Core;
  connector: BankConnector;
}
