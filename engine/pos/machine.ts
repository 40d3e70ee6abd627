// A pending settlement: what a redemption of unfunded brand cash owes one recipient in open loop
// cash, until a settler of the design pays it. Pure: the time arrives in the event.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';

export interface SettlementContext {
  designId: string;
  recipientId: string;
  /** Minor units of the design's currency, as a decimal string (JSON has no bigint). */
  amount: string;
  createdAt: string;
  settledAt: string | null;
  settleTransferId: string | null;
}

export type SettlementEvent = { type: 'settlement.settle'; at: string; settleTransferId: string };

export const settlementMachine = setup({
  types: {
    context: {} as SettlementContext,
    events: {} as SettlementEvent,
    input: {} as { designId: string; recipientId: string; amount: string; at: string },
  },
  actions: {
    stampSettled: assign({ settledAt: ({ event }) => event.at, settleTransferId: ({ event }) => event.settleTransferId }),
  },
}).createMachine({
  id: 'settlement',
  context: ({ input }) => ({ designId: input.designId, recipientId: input.recipientId, amount: input.amount, createdAt: input.at, settledAt: null, settleTransferId: null }),
  initial: 'pending',
  states: {
    pending: {
      on: { 'settlement.settle': { target: 'settled', actions: 'stampSettled' } },
    },
    settled: { type: 'final' },
  },
});

export const settlementKind = defineActorKind('settlement', settlementMachine);
