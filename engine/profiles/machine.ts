// The wallet of a profile: active until an operator suspends or closes it. Pure: time arrives in events.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';

export interface WalletContext {
  profileId: string;
  isIndividual: boolean;
  createdAt: string;
  changedAt: string;
}

export type WalletEvent =
  | { type: 'wallet.suspend'; at: string }
  | { type: 'wallet.unsuspend'; at: string }
  | { type: 'wallet.close'; at: string };

export const walletMachine = setup({
  types: {
    context: {} as WalletContext,
    events: {} as WalletEvent,
    input: {} as { profileId: string; isIndividual: boolean; createdAt: string },
  },
  actions: {
    stamp: assign({ changedAt: ({ event }) => event.at }),
  },
}).createMachine({
  id: 'wallet',
  context: ({ input }) => ({ profileId: input.profileId, isIndividual: input.isIndividual, createdAt: input.createdAt, changedAt: input.createdAt }),
  initial: 'active',
  states: {
    active: {
      on: {
        'wallet.suspend': { target: 'suspended', actions: 'stamp' },
        'wallet.close': { target: 'closed', actions: 'stamp' },
      },
    },
    suspended: {
      on: {
        'wallet.unsuspend': { target: 'active', actions: 'stamp' },
        'wallet.close': { target: 'closed', actions: 'stamp' },
      },
    },
    closed: { type: 'final' },
  },
});

export const wallet = defineActorKind('wallet', walletMachine);

/** The lock resource of a wallet (id = profile id). */
export function walletLock(profileId: string): { kind: 'wallet'; id: string } {
  return { kind: 'wallet', id: profileId };
}
