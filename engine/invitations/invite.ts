// Sending invitations: a new one (inside the caller's command, or as its own), and a re-send with a
// fresh code that may add addresses and change the details; each send goes to the message queue.
// Every code is made and hashed before the command that sends it, so argon2 never runs inside one.
import type { Unit } from '../actors/command.ts';
import { invitationAddressesMax, invitationLifetimeMs, invitationReinviteTriesMax } from '../limits.ts';
import { peekSnapshot } from '../actors/peek.ts';
import { readyCode, type ReadyCode } from '../passwords.ts';
import { parseAddresses } from './addresses.ts';
import { codeDigest, newInvitationCode } from './codes.ts';
import type { InvitationsContext } from './context.ts';
import { deliver } from './delivery.ts';
import type { InvitationFailure, InvitationInvalid } from './errors.ts';
import { invitationKind, type InvitationAddress, type InvitationDetails } from './machine.ts';
import { gone, loadOwnSent } from './sent.ts';
import * as store from './store.ts';

export interface InviteInput extends InvitationDetails {
  clientId: string;
  email?: string | null;
  phone?: string | null;
  countries: readonly string[];
  /** The code is also shown to others (a `code_shared` send): it then proves no address. */
  codeShown?: boolean;
}

export interface ReinviteInput extends Partial<InvitationDetails> {
  email?: string;
  phone?: string;
  countries: readonly string[];
}

type Sent = { inviteId: string; revealedCodes?: string[] };

/** The invitation's own fields of an input that carries others too. */
function detailsOf<T extends Partial<InvitationDetails>>(input: T): Pick<T, keyof InvitationDetails> {
  return {
    firstName: input.firstName, lastName: input.lastName, extId: input.extId, urlTemplate: input.urlTemplate, senderName: input.senderName,
    senderUrl: input.senderUrl, senderImageUrl: input.senderImageUrl, orgName: input.orgName, orgUrl: input.orgUrl, orgImageUrl: input.orgImageUrl,
  };
}

/**
 * Codes for an invitation's addresses (of `length` characters when the send asks), one for each,
 * with their hashes, made before the command that sends them (inviteIn): a code proves at most the
 * one address whose message carried it.
 */
export function makeInvitationCodes(count: number, length?: number): Promise<ReadyCode[]> {
  return Promise.all(Array.from({ length: count }, () => readyCode(newInvitationCode(length))));
}

/** Each address with the code its message carries, and the hash that lets that code prove it. */
async function withCodes(ctx: InvitationsContext, unit: Unit, inviteId: string, addresses: readonly InvitationAddress[], codes: readonly ReadyCode[], codeShown: boolean) {
  if (codes.length < addresses.length) throw new Error(`invitation ${inviteId}: ${addresses.length} addresses but ${codes.length} codes made`);
  const sent = addresses.map((address, index) => ({ address: { uid: address.uid, original: address.original, codeHash: codeShown ? null : codes[index].codeHash }, code: codes[index].code }));
  for (const { address, code } of sent) await store.setCodeDigest(unit.tx, inviteId, address.uid, await codeDigest(ctx, code, unit.tx));
  return sent;
}

export async function inviteIn(ctx: InvitationsContext, unit: Unit<InvitationInvalid>, input: InviteInput, codes: readonly ReadyCode[]): Promise<Sent> {
  const parsed = parseAddresses(input.email, input.phone, input.countries);
  if ('invalid' in parsed) return unit.reject({ ok: false, error: 'invalid', invalid: parsed.invalid });
  if (parsed.addresses.length === 0) return unit.reject({ ok: false, error: 'invalid', invalid: { email: 'email or phone is required' } });
  const inviteId = await unit.newShortId('invitation');
  const expiresAt = new Date(unit.now.getTime() + invitationLifetimeMs);
  const details: InvitationDetails = detailsOf(input);
  await store.insertInvitation(unit.tx, { id: inviteId, clientId: input.clientId, extId: input.extId }, unit.now);
  const sent = await withCodes(ctx, unit, inviteId, parsed.addresses, codes, input.codeShown === true);
  unit.create(invitationKind, inviteId, {
    ...details,
    clientId: input.clientId,
    email: input.email ?? null,
    addresses: sent.map(({ address }) => address),
    codeLength: codes[0].code.length,
    expiresAt: expiresAt.toISOString(),
  });
  unit.schedule(invitationKind, inviteId, 'expire', expiresAt, { type: 'invitation.expire' });
  const revealed = deliver(ctx, unit, inviteId, details, sent);
  return { inviteId, ...(ctx.sandbox ? { revealedCodes: revealed } : {}) };
}

export async function invite(ctx: InvitationsContext, input: InviteInput): Promise<({ ok: true } & Sent) | InvitationFailure> {
  const parsed = parseAddresses(input.email, input.phone, input.countries);
  const codes = await makeInvitationCodes('addresses' in parsed ? parsed.addresses.length : 0);
  return ctx.core.commands.run('invitation.invite', [], async (unit: Unit<InvitationFailure>) => ({ ok: true as const, ...(await inviteIn(ctx, unit, input, codes)) }));
}

/**
 * Fresh codes are hashed before the command takes the invitation's lock, one for each address the
 * re-send goes to: the given ones, or every earlier one (counted from a read before the lock; a
 * concurrent re-send that added addresses in between makes this one try again).
 */
export async function reinvite(ctx: InvitationsContext, clientId: string, inviteId: string, input: ReinviteInput): Promise<({ ok: true } & Sent) | InvitationFailure> {
  const parsed = parseAddresses(input.email, input.phone, input.countries);
  if ('invalid' in parsed) return { ok: false, error: 'invalid', invalid: parsed.invalid };
  for (let tries = 1; ; tries++) {
    const count = parsed.addresses.length > 0 ? parsed.addresses.length : await sentAddressCount(ctx, inviteId);
    const codes = await makeInvitationCodes(count);
    const outcome = await ctx.core.commands.run('invitation.reinvite', [{ kind: invitationKind.kind, id: inviteId }], (unit: Unit<InvitationFailure>) => reinviteIn(ctx, unit, clientId, inviteId, input, parsed.addresses, codes));
    if (outcome !== 'codes_short' || tries >= invitationReinviteTriesMax) return outcome === 'codes_short' ? { ok: false, error: 'invitation_gone' } : outcome;
  }
}

async function sentAddressCount(ctx: InvitationsContext, inviteId: string): Promise<number> {
  const snapshot = /^\d{10}$/.test(inviteId) ? await peekSnapshot(ctx.core.sql, invitationKind.kind, inviteId) : null;
  return (snapshot?.context as { addresses?: unknown[] } | undefined)?.addresses?.length ?? 0;
}

async function reinviteIn(ctx: InvitationsContext, unit: Unit<InvitationFailure>, clientId: string, inviteId: string, input: ReinviteInput, given: InvitationAddress[], codes: ReadyCode[]) {
  const snapshot = await loadOwnSent(unit, inviteId, clientId);
  if (snapshot === 'expired_now') return { ok: false as const, error: 'invitation_gone' as const };
  const known = new Set(snapshot.context.addresses.map((address) => address.uid));
  if (known.size + given.filter((address) => !known.has(address.uid)).length > invitationAddressesMax) {
    return unit.reject({ ok: false, error: 'invalid', invalid: { email: 'too many addresses for one invitation' } });
  }
  const targets = given.length > 0 ? given : snapshot.context.addresses;
  if (codes.length < targets.length) return 'codes_short' as const;
  const details: Partial<InvitationDetails> = Object.fromEntries(Object.entries(detailsOf(input)).filter(([, value]) => value !== undefined));
  const sent = await withCodes(ctx, unit, inviteId, targets, codes, false);
  const next = unit.send(invitationKind, inviteId, { type: 'invitation.reinvite', addresses: sent.map(({ address }) => address), email: input.email ?? null, details });
  if (!next) return gone(unit);
  if (details.extId !== undefined) await store.updateExtId(unit.tx, inviteId, details.extId);
  const revealed = deliver(ctx, unit, inviteId, next.context, sent);
  return { ok: true as const, inviteId, ...(ctx.sandbox ? { revealedCodes: revealed } : {}) };
}
