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

/** An invitation's code checked before the command: against which hash (null: no invitation to accept), and the answer. */
export interface InvitationCodeVerdict {
  inviteId: string;
  codeHash: string | null;
  ok: boolean;
}

export async function loadForAcceptIn(unit: Unit, inviteId: string): Promise<{ addresses: string[]; codeHash: string; codeLength: number; firstName: string; lastName: string } | null> {
  const snapshot = await loadSent(unit, inviteId);
  if (!snapshot || snapshot === 'expired_now') return null;
  const context = snapshot.context;
  return { addresses: context.addresses.map((address) => address.uid), codeHash: context.codeHash, codeLength: context.codeLength, firstName: context.firstName, lastName: context.lastName };
}

/** Reads the invitation without a lock and checks the code against its hash, before the attempt's command. */
export async function checkCodeAhead(ctx: InvitationsContext, inviteId: string, code: string): Promise<InvitationCodeVerdict> {
  const snapshot = /^\d{10}$/.test(inviteId) ? await peekSnapshot(ctx.core.sql, invitationKind.kind, inviteId) : null;
  const codeHash = snapshot?.value === 'sent' ? (snapshot.context as InvitationContext).codeHash : null;
  return { inviteId, codeHash, ok: await verifySecret(codeHash, code) };
}

/**
 * Inside the command: whether the code was checked ahead against the hash the invitation still
 * has, and matched (a string compare, no argon2). A code changed in between (a reinvite) answers
 * as a wrong code would.
 */
export async function codeStandsIn(unit: Unit, inviteId: string, verdict: InvitationCodeVerdict | null): Promise<boolean> {
  const snapshot = await unit.load(invitationKind, inviteId);
  if (!snapshot || snapshot.value !== 'sent' || !verdict) return false;
  return verdict.ok && verdict.inviteId === inviteId && verdict.codeHash === snapshot.context.codeHash;
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
