// Accepting an invitation, called by the authentication attempt (intent accept): what the attempt
// checks against, the code check (argon2 before the attempt's command, a string compare inside it),
// a failed try, and the acceptance.
import type { Unit } from '../actors/command.ts';
import { peekSnapshot } from '../actors/peek.ts';
import { verifySecret } from '../passwords.ts';
import type { InvitationsContext } from './context.ts';
import { invitationKind, type InvitationContext } from './machine.ts';
import { loadSent } from './sent.ts';
import * as store from './store.ts';

/** An invitation's code checked before the command: against which address's hash (null: none to prove), and the answer. */
export interface InvitationCodeVerdict {
  inviteId: string;
  uid: string;
  codeHash: string | null;
  ok: boolean;
}

/** What an accept attempt needs of an invitation: who sent it, its addresses (with the hash of each one's own code), the invitee's name. */
export interface InvitationForAccept {
  clientId: string;
  addresses: { uid: string; codeHash: string | null }[];
  codeLength: number;
  firstName: string;
  lastName: string;
}

/** The hash of the code sent to `uid` alone; null when none was (a shown code, or an invitation from before per-address codes). */
function addressCodeHash(context: InvitationContext, uid: string): string | null {
  return context.addresses.find((address) => address.uid === uid)?.codeHash ?? null;
}

export async function loadForAcceptIn(unit: Unit, inviteId: string): Promise<InvitationForAccept | null> {
  const snapshot = await loadSent(unit, inviteId);
  if (!snapshot || snapshot === 'expired_now') return null;
  const context = snapshot.context;
  return {
    clientId: context.clientId,
    addresses: context.addresses.map((address) => ({ uid: address.uid, codeHash: address.codeHash ?? null })),
    codeLength: context.codeLength,
    firstName: context.firstName,
    lastName: context.lastName,
  };
}

/** Reads the invitation without a lock and checks the code against the one sent to `uid`, before the attempt's command. */
export async function checkCodeAhead(ctx: InvitationsContext, inviteId: string, uid: string, code: string): Promise<InvitationCodeVerdict> {
  const snapshot = /^\d{10}$/.test(inviteId) ? await peekSnapshot(ctx.core.sql, invitationKind.kind, inviteId) : null;
  const codeHash = snapshot?.value === 'sent' ? addressCodeHash(snapshot.context as InvitationContext, uid) : null;
  return { inviteId, uid, codeHash, ok: codeHash !== null && (await verifySecret(codeHash, code)) };
}

/**
 * Inside the command: whether the code was checked ahead against the hash the address still has,
 * and matched (a string compare, no argon2). A code changed in between (a reinvite) answers as a
 * wrong code would.
 */
export async function codeStandsIn(unit: Unit, inviteId: string, uid: string, verdict: InvitationCodeVerdict | null): Promise<boolean> {
  const snapshot = await unit.load(invitationKind, inviteId);
  if (!snapshot || snapshot.value !== 'sent' || !verdict) return false;
  const codeHash = addressCodeHash(snapshot.context, uid);
  return verdict.ok && codeHash !== null && verdict.inviteId === inviteId && verdict.uid === uid && verdict.codeHash === codeHash;
}

export async function recordFailureIn(unit: Unit, inviteId: string): Promise<void> {
  const snapshot = await unit.load(invitationKind, inviteId);
  if (!snapshot) return;
  const next = unit.send(invitationKind, inviteId, { type: 'invitation.code_failed' });
  if (next?.value === 'expired') unit.cancelTimer(invitationKind, inviteId, 'expire');
}

export async function markAcceptedIn(unit: Unit, inviteId: string, profileId: string): Promise<void> {
  const snapshot = await unit.load(invitationKind, inviteId);
  if (!snapshot || snapshot.value !== 'sent') return;
  unit.send(invitationKind, inviteId, { type: 'invitation.accept', profileId });
  await store.markAccepted(unit.tx, inviteId, profileId, unit.now);
}
