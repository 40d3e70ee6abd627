// Checks made before an attempt's command, so argon2 never runs while the command holds its locks
// and a pooled connection: the attempt is read without a lock, the password or code is verified,
// and the command only confirms that what was verified is still what it holds (a string compare).
import { peekSnapshot } from '../actors/peek.ts';
import { constantTimeEqual, secretHash } from '../ids.ts';
import { verifySecret } from '../passwords.ts';
import type { InvitationCodeVerdict } from '../invitations/service.ts';
import type { AuthnContext } from './context.ts';
import { pendingFactor, pendingFactors, type AttemptContext } from './machine.ts';
import type { AttemptCredential } from './types.ts';

/** The attempt's context as it stands now, if the credential opens it and it is active; else null (the command answers why). */
export async function peekAttempt(ctx: AuthnContext, id: string, credential: AttemptCredential): Promise<AttemptContext | null> {
  if (!/^\d{10}$/.test(id)) return null;
  const snapshot = await peekSnapshot(ctx.core.sql, 'authn_attempt', id);
  if (!snapshot || snapshot.value !== 'active') return null;
  const context = snapshot.context as AttemptContext;
  if ('secret' in credential && !constantTimeEqual(secretHash(credential.secret), context.secretHash)) return null;
  return context;
}

/** A code verified ahead against one pending factor: which hash it was checked against, and the answer. */
export interface CodeVerdict {
  factorId: string;
  codeHash: string | null;
  ok: boolean;
}

/**
 * Verifies a code against the attempt's pending factors (sent codes; an invitation's code is the
 * invitation's to check): the one named, or every one, whatever matched.
 */
export async function checkCodesAhead(context: AttemptContext | null, code: string, factorId?: string): Promise<CodeVerdict[]> {
  const pending = context ? pendingFactors(context).filter((factor) => !factor.viaInvitation) : [];
  const factors = factorId === undefined ? pending : pending.filter((factor) => factor.factorId === factorId);
  return Promise.all(factors.map(async (factor) => ({ factorId: factor.factorId, codeHash: factor.codeHash, ok: await verifySecret(factor.codeHash, code) })));
}

/**
 * An invitation's code (the accept intent's first factor) is the invitation's to check: ahead, against
 * the invitation as read now; the command confirms it still has that hash (codeStandsIn). Null when
 * the factor named is not the invitation's.
 */
export async function checkInvitationCodeAhead(ctx: AuthnContext, context: AttemptContext | null, code: string, factorId: string): Promise<InvitationCodeVerdict | null> {
  const pending = context ? pendingFactor(context, factorId) : null;
  if (!context?.inviteId || !pending?.viaInvitation) return null;
  return ctx.deps.invitations.checkCodeAhead(context.inviteId, pending.uid, code);
}

/** Inside the command: whether the code was verified ahead against this very factor (same id, same hash) and matched. */
export function codeVerdictFor(verdicts: readonly CodeVerdict[], factor: { factorId: string; codeHash: string | null }): boolean {
  return verdicts.some((verdict) => verdict.factorId === factor.factorId && verdict.codeHash === factor.codeHash && verdict.ok);
}
