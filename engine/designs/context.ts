// What the operations of the designs services run with: the core and the services each calls,
// built once by its create… factory and passed first to each operation.
import type { CommandRunner } from '../actors/command.ts';
import type { Config } from '../config.ts';
import type { Core } from '../core.ts';
import type { MessagesService } from '../messages/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Sql } from '../storage/database.ts';
import type { TransfersService } from '../transfers/service.ts';

interface CoreContext {
  core: Core;
  sql: Sql;
  commands: CommandRunner;
  config: Config;
}

function coreContext(core: Core): CoreContext {
  return { core, sql: core.sql, commands: core.commands, config: core.config };
}

/** Designs, plans and agreements (service.ts). */
export interface DesignsContext extends CoreContext {
  profiles: ProfilesService;
  messages: MessagesService;
}

/** Design sends and expiry (circulation.ts), and bills (bills.ts), which issue brand cash the same way. */
export interface CirculationContext extends DesignsContext {
  transfers: TransfersService;
}

/** Images and icons (images.ts). */
export type ImagesContext = CoreContext;

export function designsContext(core: Core, dependencies: { profiles: ProfilesService; messages: MessagesService }): DesignsContext {
  return { ...coreContext(core), profiles: dependencies.profiles, messages: dependencies.messages };
}

export function circulationContext(core: Core, dependencies: { profiles: ProfilesService; transfers: TransfersService; messages: MessagesService }): CirculationContext {
  return { ...coreContext(core), profiles: dependencies.profiles, transfers: dependencies.transfers, messages: dependencies.messages };
}

export const imagesContext: (core: Core) => ImagesContext = coreContext;
