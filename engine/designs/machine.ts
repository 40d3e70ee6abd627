// Cash designs and network agreements: pure machines. Time arrives in events.
// A design is unpublished until notes are first issued under it; only an unpublished design can
// be deleted. An agreement starts inactive (active when the member is its owner's own profile),
// is activated only by its member, deactivated by either side, and removed for good.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';

export interface DesignContext {
  issuerId: string;
  createdAt: string;
  publishedAt: string | null;
  deletedAt: string | null;
}

// design.expire_due and design.remind_due are delivered by the sweeper (notes reaching their expiry,
// the daily holders' reminder); they change no state of the design and are accepted in every state.
export type DesignEvent = { type: 'design.publish'; at: string } | { type: 'design.delete'; at: string } | { type: 'design.expire_due'; at: string } | { type: 'design.remind_due'; at: string };

export const designMachine = setup({
  types: {
    context: {} as DesignContext,
    events: {} as DesignEvent,
    input: {} as { issuerId: string; createdAt: string },
  },
  actions: {
    stampPublished: assign({ publishedAt: ({ event }) => event.at }),
    stampDeleted: assign({ deletedAt: ({ event }) => event.at }),
  },
}).createMachine({
  id: 'design',
  context: ({ input }) => ({ issuerId: input.issuerId, createdAt: input.createdAt, publishedAt: null, deletedAt: null }),
  initial: 'unpublished',
  states: {
    unpublished: {
      on: {
        'design.publish': { target: 'published', actions: 'stampPublished' },
        'design.delete': { target: 'deleted', actions: 'stampDeleted' },
      },
    },
    published: {},
    deleted: { type: 'final' },
  },
});

export const designKind = defineActorKind('design', designMachine);

export interface AgreementContext {
  designId: string;
  memberId: string;
  /** The member is the owner's own profile: the agreement needs no activation. */
  startsActive: boolean;
  changedAt: string;
}

export type AgreementEvent =
  | { type: 'agreement.activate'; at: string }
  | { type: 'agreement.deactivate'; at: string }
  | { type: 'agreement.remove'; at: string };

export const agreementMachine = setup({
  types: {
    context: {} as AgreementContext,
    events: {} as AgreementEvent,
    input: {} as { designId: string; memberId: string; at: string; active: boolean },
  },
  guards: {
    startsActive: ({ context }) => context.startsActive,
  },
  actions: {
    stamp: assign({ changedAt: ({ event }) => event.at }),
  },
}).createMachine({
  id: 'agreement',
  context: ({ input }) => ({ designId: input.designId, memberId: input.memberId, startsActive: input.active, changedAt: input.at }),
  initial: 'start',
  states: {
    start: {
      always: [{ guard: 'startsActive', target: 'active' }, { target: 'inactive' }],
    },
    inactive: {
      on: {
        'agreement.activate': { target: 'active', actions: 'stamp' },
        'agreement.deactivate': { target: 'deactivated', actions: 'stamp' },
        'agreement.remove': { target: 'removed', actions: 'stamp' },
      },
    },
    active: {
      on: {
        'agreement.deactivate': { target: 'deactivated', actions: 'stamp' },
        'agreement.remove': { target: 'removed', actions: 'stamp' },
      },
    },
    deactivated: {
      on: {
        'agreement.activate': { target: 'active', actions: 'stamp' },
        'agreement.remove': { target: 'removed', actions: 'stamp' },
      },
    },
    removed: { type: 'final' },
  },
});

export const agreementKind = defineActorKind('agreement', agreementMachine);
