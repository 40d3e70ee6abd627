// Accepting an invitation, called by the authentication attempt (intent accept) inside its own
// command: what the attempt checks against, the code check, a failed try, and the acceptance.
import type { Unit } from '../actors/command.ts';
import { verifySecret } from '../passwords.ts';
import { invitationKind } from './machine.ts';
import { loadSent } from './sent.ts';
import * as store from './store.ts';

export async function loadForAcceptIn(unit: Unit, inviteId: string): Promise<{ addresses: string[]; codeHash: string; codeLength: number; firstName: string; lastName: string } | null> {
  const snapshot = await loadSent(unit, inviteId);
  if (!snapshot || snapshot === 'expired_now') return null;
  const context = snapshot.context;
  return { addresses: context.addresses.map((address) => address.uid), codeHash: context.codeHash, codeLength: context.codeLength, firstName: context.firstName, lastName: context.lastName };
}

export async function verifyCodeIn(unit: Unit, inviteId: string, code: string): Promise<boolean> {
  const snapshot = await unit.load(invitationKind, inviteId);
  if (!snapshot || snapshot.value !== 'sent') return false;
  return verifySecret(snapshot.context.codeHash, code);
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
