// What an operator manages, listed: apps, profiles and registered bank accounts (read-only).
import type { Core } from '../core.ts';
import { operatorListMax } from '../limits.ts';
import * as store from './store.ts';

export interface OperatorListsService {
  apps(limit?: number): Promise<store.AppListRow[]>;
  profiles(filter: { site?: string; kind?: 'individual' | 'business' }, limit?: number): Promise<store.ProfileListRow[]>;
  accounts(profileId: string | undefined, limit?: number): Promise<store.AccountListRow[]>;
}

export function createOperatorListsService(core: Core): OperatorListsService {
  const bounded = (limit: number | undefined) => Math.min(limit ?? operatorListMax, operatorListMax);
  return {
    apps: (limit) => store.selectApps(core.sql, bounded(limit)),
    profiles: (filter, limit) => store.selectProfiles(core.sql, filter, bounded(limit)),
    accounts: (profileId, limit) => store.selectRegisteredAccounts(core.sql, profileId, bounded(limit)),
  };
}
