// Sending invitations: a new one (inside the caller's command, or as its own), and a re-send with a
// fresh code that may add addresses and change the details; each send goes to the message queue.
// Every code is made and hashed before the command that sends it, so argon2 never runs inside one.
import type { Unit } from '../actors/command.ts';
import { invitationAddressesMax, invitationLifetimeMs } from '../limits.ts';
import { hashSecret, readyCode, type ReadyCode } from '../passwords.ts';
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

/** A new invitation's code (of `length` characters when the send asks) and its hash, made before the command that sends it (inviteIn). */
export function makeInvitationCode(length?: number): Promise<ReadyCode> {
  return readyCode(newInvitationCode(length));
}

export async function inviteIn(ctx: InvitationsContext, unit: Unit<InvitationInvalid>, input: InviteInput, ready: ReadyCode): Promise<Sent> {
  const parsed = parseAddresses(input.email, input.phone, input.countries);
  if ('invalid' in parsed) return unit.reject({ ok: false, error: 'invalid', invalid: parsed.invalid });
  if (parsed.addresses.length === 0) return unit.reject({ ok: false, error: 'invalid', invalid: { email: 'email or phone is required' } });
  const { code, codeHash } = ready;
  const inviteId = await unit.newShortId('invitation');
  const expiresAt = new Date(unit.now.getTime() + invitationLifetimeMs);
  const details: InvitationDetails = detailsOf(input);
  unit.create(invitationKind, inviteId, {
    ...details,
    clientId: input.clientId,
    email: input.email ?? null,
    addresses: parsed.addresses,
    codeHash,
    codeLength: code.length,
    expiresAt: expiresAt.toISOString(),
  });
  unit.schedule(invitationKind, inviteId, 'expire', expiresAt, { type: 'invitation.expire' });
  await store.insertInvitation(unit.tx, { id: inviteId, clientId: input.clientId, extId: input.extId }, unit.now);
  await store.setCodeDigest(unit.tx, inviteId, await codeDigest(ctx, code, unit.tx));
  const revealed = deliver(ctx, unit, inviteId, details, parsed.addresses, code);
  return { inviteId, ...(ctx.sandbox ? { revealedCodes: revealed } : {}) };
}

export async function invite(ctx: InvitationsContext, input: InviteInput): Promise<({ ok: true } & Sent) | InvitationFailure> {
  const ready = await makeInvitationCode();
  return ctx.core.commands.run('invitation.invite', [], async (unit: Unit<InvitationFailure>) => ({ ok: true as const, ...(await inviteIn(ctx, unit, input, ready)) }));
}

/** The fresh code is hashed and digested before the command takes the invitation's lock. */
export async function reinvite(ctx: InvitationsContext, clientId: string, inviteId: string, input: ReinviteInput): Promise<({ ok: true } & Sent) | InvitationFailure> {
  const parsed = parseAddresses(input.email, input.phone, input.countries);
  if ('invalid' in parsed) return { ok: false, error: 'invalid', invalid: parsed.invalid };
  const code = newInvitationCode();
  const [codeHash, digest] = await Promise.all([hashSecret(code), codeDigest(ctx, code, ctx.core.sql)]);
  const fresh = { code, codeHash, digest, addresses: parsed.addresses };
  return ctx.core.commands.run('invitation.reinvite', [{ kind: invitationKind.kind, id: inviteId }], (unit: Unit<InvitationFailure>) => reinviteIn(ctx, unit, clientId, inviteId, input, fresh));
}

async function reinviteIn(ctx: InvitationsContext, unit: Unit<InvitationFailure>, clientId: string, inviteId: string, input: ReinviteInput, fresh: { code: string; codeHash: string; digest: string; addresses: InvitationAddress[] }) {
  const snapshot = await loadOwnSent(unit, inviteId, clientId);
  if (snapshot === 'expired_now') return { ok: false as const, error: 'invitation_gone' as const };
  if (snapshot.context.addresses.length + fresh.addresses.length > invitationAddressesMax) {
    return unit.reject({ ok: false, error: 'invalid', invalid: { email: 'too many addresses for one invitation' } });
  }
  const details: Partial<InvitationDetails> = Object.fromEntries(Object.entries(detailsOf(input)).filter(([, value]) => value !== undefined));
  const next = unit.send(invitationKind, inviteId, { type: 'invitation.reinvite', codeHash: fresh.codeHash, addresses: fresh.addresses, email: input.email ?? null, details });
  if (!next) return gone(unit);
  if (details.extId !== undefined) await store.updateExtId(unit.tx, inviteId, details.extId);
  await store.setCodeDigest(unit.tx, inviteId, fresh.digest);
  const targets = fresh.addresses.length > 0 ? fresh.addresses : next.context.addresses;
  const revealed = deliver(ctx, unit, inviteId, next.context, targets, fresh.code);
  return { ok: true as const, inviteId, ...(ctx.sandbox ? { revealedCodes: revealed } : {}) };
}
