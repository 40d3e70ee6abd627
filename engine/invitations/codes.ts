// Invitation codes: made of digits and upper-case letters, shown in groups of four, read back with
// case and dashes ignored, and found again through a keyed digest (the code itself is never stored).
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { installationKeyBytes, invitationCodeChars } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { InvitationsContext } from './context.ts';
import * as store from './store.ts';

/** Codes are read back by people: case and dashes or spaces do not matter. */
export function normalizeInvitationCode(code: string): string {
  return code.toUpperCase().replace(/[^0-9A-Z]/g, '');
}

const codeAlphabet = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';

/** A new code of `length` characters (invitation_code_length on a send; the default otherwise). */
export function newInvitationCode(length: number = invitationCodeChars): string {
  let code = '';
  for (let index = 0; index < length; index++) code += codeAlphabet[randomInt(codeAlphabet.length)];
  return code;
}

/** Shows a code in groups of four for reading; dashes are ignored on input. */
export function displayInvitationCode(code: string): string {
  return code.match(/.{1,4}/g)?.join('-') ?? code;
}

/**
 * HMAC-SHA256 of the normalised code under the installation's invitation-code key. Inside a
 * command pass its transaction: PGlite serves one connection, so the outer pool would wait.
 */
export async function codeDigest(ctx: InvitationsContext, code: string, db: Queryable): Promise<string> {
  ctx.digestKey ??= await store.installationSecret(db, 'invitation_code_key', randomBytes(installationKeyBytes).toString('hex'), ctx.core.clock.now());
  return createHmac('sha256', ctx.digestKey).update(normalizeInvitationCode(code)).digest('hex');
}

/** The invitation whose current code this is (a keyed digest lookup; a match proves the code). */
export async function findByCode(ctx: InvitationsContext, code: string): Promise<{ inviteId: string; extId: string | null } | null> {
  const normalized = normalizeInvitationCode(code);
  if (normalized.length === 0) return null;
  const row = await store.selectByCodeDigest(ctx.core.sql, await codeDigest(ctx, normalized, ctx.core.sql));
  return row ? { inviteId: row.id, extId: row.ext_id } : null;
}
