// An invitation to join: sent (and re-sent with a fresh code) until it expires by time, by the
// app, by excessive code failures, or when the recipient finishes it. Pure: hashes, times and
// addresses arrive in events.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';
import { invitationExpireAfterFailures } from '../limits.ts';

export interface InvitationAddress {
  uid: string;
  original: string;
  /**
   * The hash of the code sent to this address alone, which proves the address in an accept
   * attempt. Null when the code was also shown to someone else (a `code_shared` send); absent on
   * invitations sent before each address had its own code. Either way it proves nothing.
   */
  codeHash?: string | null;
}

export interface InvitationDetails {
  firstName: string;
  lastName: string;
  extId: string | null;
  urlTemplate: string;
  senderName: string;
  senderUrl: string | null;
  senderImageUrl: string | null;
  orgName: string | null;
  orgUrl: string | null;
  orgImageUrl: string | null;
}

export interface InvitationContext extends InvitationDetails {
  clientId: string;
  /** The email given by the sender, as given. */
  email: string | null;
  addresses: InvitationAddress[];
  codeLength: number;
  failures: number;
  sentCount: number;
  acceptedProfileId: string | null;
  expiresAt: string;
}

export type InvitationInput = Omit<InvitationContext, 'failures' | 'sentCount' | 'acceptedProfileId'>;

export type InvitationEvent =
  | { type: 'invitation.reinvite'; addresses: InvitationAddress[]; email: string | null; details: Partial<InvitationDetails> }
  | { type: 'invitation.code_failed' }
  | { type: 'invitation.accept'; profileId: string }
  | { type: 'invitation.expire' };

export const invitationMachine = setup({
  types: { context: {} as InvitationContext, events: {} as InvitationEvent, input: {} as InvitationInput },
  guards: {
    failedTooOften: ({ context }) => context.failures + 1 >= invitationExpireAfterFailures,
  },
  actions: {
    countFailure: assign({ failures: ({ context }) => context.failures + 1 }),
    resend: assign(({ context, event }) => {
      if (event.type !== 'invitation.reinvite') return {};
      // The addresses sent to get their fresh codes; the others keep theirs.
      const fresh = new Map(event.addresses.map((address) => [address.uid, address]));
      const kept = context.addresses.map((address) => (fresh.has(address.uid) ? { ...address, codeHash: fresh.get(address.uid)!.codeHash } : address));
      const known = new Set(context.addresses.map((address) => address.uid));
      const addresses = [...kept, ...event.addresses.filter((address) => !known.has(address.uid))];
      return { ...event.details, addresses, email: event.email ?? context.email, sentCount: context.sentCount + 1 };
    }),
    accept: assign({ acceptedProfileId: ({ context, event }) => (event.type === 'invitation.accept' ? event.profileId : context.acceptedProfileId) }),
  },
}).createMachine({
  id: 'invitation',
  context: ({ input }) => ({ ...input, failures: 0, sentCount: 1, acceptedProfileId: null }),
  initial: 'sent',
  states: {
    sent: {
      on: {
        'invitation.reinvite': { actions: 'resend' },
        'invitation.code_failed': [{ guard: 'failedTooOften', target: 'expired', actions: 'countFailure' }, { actions: 'countFailure' }],
        'invitation.accept': { actions: 'accept' },
        'invitation.expire': { target: 'expired' },
      },
    },
    expired: {},
  },
});

export const invitationKind = defineActorKind('invitation', invitationMachine);
