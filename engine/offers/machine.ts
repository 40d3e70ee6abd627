// An offer: open until its business (or an operator) closes it. Pure: the time arrives in events.
// Selling out does not close an offer (its stock is a column that falls by a conditional update
// and rises again when the merchant adds quantity); closing is for good.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';

export interface OfferContext {
  profileId: string;
  createdAt: string;
  editedAt: string | null;
  closedAt: string | null;
}

// offer.confirm_expire is delivered by the sweeper when an accept waiting for its confirmation
// link runs out of time; the service ends that accept, and the offer's own state does not change.
export type OfferEvent =
  | { type: 'offer.edit'; at: string }
  | { type: 'offer.close'; at: string }
  | { type: 'offer.confirm_expire'; at: string; acceptanceId: string };

export const offerMachine = setup({
  types: {
    context: {} as OfferContext,
    events: {} as OfferEvent,
    input: {} as { profileId: string; createdAt: string },
  },
  actions: {
    stampEdited: assign({ editedAt: ({ event }) => event.at }),
    stampClosed: assign({ closedAt: ({ event }) => event.at }),
  },
}).createMachine({
  id: 'offer',
  context: ({ input }) => ({ profileId: input.profileId, createdAt: input.createdAt, editedAt: null, closedAt: null }),
  initial: 'open',
  states: {
    open: {
      on: {
        'offer.edit': { actions: 'stampEdited' },
        'offer.close': { target: 'closed', actions: 'stampClosed' },
      },
    },
    closed: {},
  },
});

export const offerKind = defineActorKind('offer', offerMachine);
