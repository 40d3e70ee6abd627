// What the operations of the designs services run with: the core and the services each calls,
// built once by its create… factory and passed first to each operation.
import type { Core } from '../core.ts';
import type { MessagesService } from '../messages/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TransfersService } from '../transfers/service.ts';
import { coreContext, type CoreContext } from './core-context.ts';

export { imagesContext, type ImagesContext } from './core-context.ts';

/** Designs, plans and agreements (service.ts). */
export interface DesignsContext extends CoreContext {
  profiles: ProfilesService;
  messages: MessagesService;
}

/** Design sends and expiry (circulation.ts), and bills (bills.ts), which issue brand cash the same way. */
export interface CirculationContext extends DesignsContext {
  transfers: TransfersService;
}

export function designsContext(core: Core, dependencies: { profiles: ProfilesService; messages: MessagesService }): DesignsContext {
  return { ...coreContext(core), profiles: dependencies.profiles, messages: dependencies.messages };
}

export function circulationContext(core: Core, dependencies: { profiles: ProfilesService; transfers: TransfersService; messages: MessagesService }): CirculationContext {
  return { ...coreContext(core), profiles: dependencies.profiles, transfers: dependencies.transfers, messages: dependencies.messages };
}
