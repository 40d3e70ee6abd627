// Every domain service, built on the core. Each domain adds itself here, one line each.
import type { Core } from './core.ts';

export interface Services {
  core: Core;
}

export async function createServices(core: Core): Promise<Services> {
  return { core };
}
