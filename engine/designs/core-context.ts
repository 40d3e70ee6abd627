// What every designs operation runs with (the core's handles), and the images service's context,
// which is only that. A leaf beside context.ts: the images and their views use it without
// reaching context.ts, which holds the transfers service for circulation.
import type { CommandRunner } from '../actors/command.ts';
import type { Config } from '../config.ts';
import type { Core } from '../core.ts';
import type { Sql } from '../storage/database.ts';

export interface CoreContext {
  core: Core;
  sql: Sql;
  commands: CommandRunner;
  config: Config;
}

export function coreContext(core: Core): CoreContext {
  return { core, sql: core.sql, commands: core.commands, config: core.config };
}

/** Images and icons (images.ts). */
export type ImagesContext = CoreContext;

export const imagesContext: (core: Core) => ImagesContext = coreContext;
