// A tiny counter machine used by the command-path tests.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../../engine/actors/actor.ts';

export const counterMachine = setup({
  types: {
    context: {} as { count: number },
    events: {} as { type: 'counter.add'; by: number } | { type: 'counter.close' },
    input: {} as { start: number },
  },
}).createMachine({
  id: 'counter',
  context: ({ input }) => ({ count: input.start }),
  initial: 'open',
  states: {
    open: {
      on: {
        'counter.add': { actions: assign({ count: ({ context, event }) => context.count + event.by }) },
        'counter.close': { target: 'closed' },
      },
    },
    closed: {},
  },
});

export const counter = defineActorKind('test_counter', counterMachine);
