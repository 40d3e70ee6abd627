// A paycard: pure. Linked cards are active; the holder (or the card network) suspends and
// unsuspends them; deleting is for good. Time arrives in events.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';

export interface PaycardContext {
  profileId: string;
  linkedAt: string;
  changedAt: string;
}

export type PaycardEvent =
  | { type: 'paycard.suspend'; at: string }
  | { type: 'paycard.unsuspend'; at: string }
  | { type: 'paycard.delete'; at: string };

export const paycardMachine = setup({
  types: { context: {} as PaycardContext, events: {} as PaycardEvent, input: {} as { profileId: string; at: string } },
  actions: { stamp: assign({ changedAt: ({ event }) => event.at }) },
}).createMachine({
  id: 'paycard',
  context: ({ input }) => ({ profileId: input.profileId, linkedAt: input.at, changedAt: input.at }),
  initial: 'active',
  states: {
    active: { on: { 'paycard.suspend': { target: 'suspended', actions: 'stamp' }, 'paycard.delete': { target: 'deleted', actions: 'stamp' } } },
    suspended: { on: { 'paycard.unsuspend': { target: 'active', actions: 'stamp' }, 'paycard.delete': { target: 'deleted', actions: 'stamp' } } },
    deleted: { type: 'final' },
  },
});

export const paycardKind = defineActorKind('paycard', paycardMachine);
export type PaycardState = 'active' | 'suspended' | 'deleted';
