// Brand cash in circulation: design sends (design-send.ts) issue new notes of a gl_design through
// distributeIn (distribution.ts, re-exported here with the split); expiry (expiry.ts): the sweeper
// moves due notes back to the issuer (movement `expire`), out of circulation, and releases their
// reserve to the issuer. Here the context is built and the sends and the design's timers wired.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import type { MessagesService } from '../messages/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TransfersService } from '../transfers/service.ts';
import { circulationContext, type CirculationContext } from './context.ts';
import { send } from './design-send.ts';
import { expireDueIn } from './expiry.ts';
import { promiseProblems } from './promises.ts';
import type { Queryable } from '../storage/database.ts';
import { designKind } from './machine.ts';
import { remindHoldersIn } from './reminders.ts';
import * as store from './store.ts';
import type { DesignSendInput, DesignSendResult } from './design-send-types.ts';
export type { DesignSendInput, DesignSendResult } from './design-send-types.ts';

export { expireDueIn } from './expiry.ts';
export { distributeIn, distributionSplit, noteExpiry, payIn, type DistributionSplit } from './distribution.ts';

export interface Circulation {
  send(input: DesignSendInput): Promise<DesignSendResult>;
  /** The designs whose cash the profile accepts as payment: its own designs' cash is accepted anyway. */
  redeemedDesignIds(profileId: string): Promise<Set<string>>;
}

async function redeemedDesignIds(ctx: CirculationContext, profileId: string): Promise<Set<string>> {
  return new Set(await store.selectRedeemedDesignIds(ctx.sql, profileId));
}

/** The design's timers: holders' reminders, and notes due to expire. */
async function designTimerIn(ctx: CirculationContext, unit: Unit, timer: { actorId: string; name: string }): Promise<void> {
  if (timer.name === 'remind') await remindHoldersIn(unit, timer.actorId, { profiles: ctx.profiles, messages: ctx.messages });
  else await expireDueIn(unit, timer.actorId);
}

export function createCirculation(
  core: Core, dependencies: { profiles: ProfilesService; transfers: TransfersService; messages: MessagesService; audit?: { addAuditCheck(check: (db: Queryable) => Promise<string[]>): void } },
): Circulation {
  const ctx = circulationContext(core, dependencies);
  const circulation: Circulation = {
    send: (input) => send(ctx, input),
    redeemedDesignIds: (profileId) => redeemedDesignIds(ctx, profileId),
  };
  core.sweeper.register(designKind.kind, (unit, timer) => designTimerIn(ctx, unit, timer));
  dependencies.audit?.addAuditCheck(promiseProblems);
  return circulation;
}

