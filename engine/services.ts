// Every domain service, built on the core. Each domain adds itself here, one line each.
import type { Core } from './core.ts';
import { createAppsService, type AppsService } from './apps/service.ts';
import { createProfilesService, type ProfilesService } from './profiles/service.ts';
import { createTokensService, type TokensService } from './tokens/service.ts';

export interface Services {
  core: Core;
  apps: AppsService;
  profiles: ProfilesService;
  tokens: TokensService;
}

export async function createServices(core: Core): Promise<Services> {
  const apps = createAppsService(core);
  const profiles = createProfilesService(core);
  const tokens = createTokensService(core, { profiles });
  return { core, apps, profiles, tokens };
}
