// Invitations to join: an app invites a person by email and/or phone; the message carries a link
// built from url_template and a code (digits and upper-case letters, dashes ignored). The code is
// kept only as an argon2 hash. Accepting happens through an authentication attempt (intent accept).
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { randomHex } from '../ids.ts';
import { installationKeyBytes, invitationAddressesMax, invitationCodeChars, invitationLifetimeMs } from '../limits.ts';
import { hashSecret, verifySecret } from '../passwords.ts';
import type { MessagesService } from '../messages/service.ts';
import { invitationMessage } from '../messages/templates.ts';
import type { Queryable } from '../storage/database.ts';
import { parseEmail, parsePhone } from '../uids.ts';
import type { InvitationFailure, InvitationInvalid } from './errors.ts';
import { invitationKind, type InvitationAddress, type InvitationContext, type InvitationDetails } from './machine.ts';
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

export interface InvitationsService {
  /** Creates and sends an invitation inside the caller's command (POST /ai/invite, or a send that requires an email). */
  inviteIn(unit: Unit<InvitationInvalid>, input: InviteInput): Promise<{ inviteId: string; revealedCodes?: string[] }>;
  invite(input: InviteInput): Promise<{ ok: true; inviteId: string; revealedCodes?: string[] } | InvitationFailure>;
  get(inviteId: string): Promise<{ ok: true; invitation: Record<string, unknown> } | InvitationFailure>;
  reinvite(clientId: string, inviteId: string, input: ReinviteInput): Promise<{ ok: true; inviteId: string; revealedCodes?: string[] } | InvitationFailure>;
  expire(clientId: string, inviteId: string): Promise<{ ok: true } | InvitationFailure>;
  /** Expires the invitation the profile accepted through this app; repeatable. */
  finish(profileId: string, clientId: string): Promise<{ inviteId: string | null; extId: string | null }>;
  loadForAcceptIn(unit: Unit, inviteId: string): Promise<{ addresses: string[]; codeHash: string; codeLength: number; firstName: string; lastName: string } | null>;
  verifyCodeIn(unit: Unit, inviteId: string, code: string): Promise<boolean>;
  recordFailureIn(unit: Unit, inviteId: string): Promise<void>;
  markAcceptedIn(unit: Unit, inviteId: string, profileId: string): Promise<void>;
  /** The invitation whose current code this is (a keyed digest lookup; a match proves the code). */
  findByCode(code: string): Promise<{ inviteId: string; extId: string | null } | null>;
}

/** Codes are read back by people: case and dashes or spaces do not matter. */
export function normalizeInvitationCode(code: string): string {
  return code.toUpperCase().replace(/[^0-9A-Z]/g, '');
}

const codeAlphabet = '0123456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const personalDomains = new Set([
  'gmail.com', 'googlemail.com', 'yahoo.com', 'ymail.com', 'hotmail.com', 'outlook.com', 'live.com', 'msn.com', 'icloud.com',
  'me.com', 'mac.com', 'aol.com', 'proton.me', 'protonmail.com', 'gmx.com', 'gmx.net', 'mail.com', 'yandex.com', 'zoho.com',
  'comcast.net', 'verizon.net', 'att.net', 'sbcglobal.net', 'example.com', 'example.org',
]);
const roleMailboxes = /^(info|sales|support|admin|contact|office|billing|accounts|hello|team|hr|jobs|noreply|no-reply)$/i;

export function newInvitationCode(): string {
  let code = '';
  for (let index = 0; index < invitationCodeChars; index++) code += codeAlphabet[randomInt(codeAlphabet.length)];
  return code;
}

/** Shows a code in groups of four for reading; dashes are ignored on input. */
export function displayInvitationCode(code: string): string {
  return code.match(/.{1,4}/g)?.join('-') ?? code;
}

/** A heuristic: phones and mailboxes at consumer email providers are personal; role mailboxes and company domains are not. */
export function isPersonalAddress(email: string | null, hasPhone: boolean): boolean {
  if (!email) return hasPhone;
  const [local, domain = ''] = email.toLowerCase().split('@');
  if (roleMailboxes.test(local)) return false;
  return personalDomains.has(domain);
}

function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/INVITE_ID|CODE|DELIVERY_ID|EXT_ID/g, (name) => encodeURIComponent(values[name] ?? ''));
}

export function parseAddresses(email: string | null | undefined, phone: string | null | undefined, countries: readonly string[]): { addresses: InvitationAddress[] } | { invalid: Record<string, string> } {
  const addresses: InvitationAddress[] = [];
  if (email) {
    const parsed = parseEmail(email);
    if (!parsed) return { invalid: { email: 'is not an email address' } };
    addresses.push({ uid: parsed.uid, original: parsed.original });
  }
  if (phone) {
    const parsed = parsePhone(phone, countries);
    if (!parsed) return { invalid: { phone: 'is not a phone number' } };
    addresses.push({ uid: parsed.uid, original: parsed.original });
  }
  return { addresses };
}

export function createInvitationsService(core: Core, dependencies: { messages: MessagesService }): InvitationsService {
  const { commands, config } = core;
  const sandbox = config.mode === 'sandbox';

  let digestKey: string | null = null;
  /**
   * HMAC-SHA256 of the normalised code under the installation's invitation-code key. Inside a
   * command pass its transaction: PGlite serves one connection, so the outer pool would wait.
   */
  async function codeDigest(code: string, db: Queryable): Promise<string> {
    digestKey ??= await store.installationSecret(db, 'invitation_code_key', randomBytes(installationKeyBytes).toString('hex'), core.clock.now());
    return createHmac('sha256', digestKey).update(normalizeInvitationCode(code)).digest('hex');
  }

  function gone(unit: Unit<InvitationFailure>): never {
    return unit.reject({ ok: false, error: 'invitation_gone' });
  }

  /** Sends the invitation message with a fresh code to each address; returns the sandbox reveals. */
  function deliver(unit: Unit, inviteId: string, context: Pick<InvitationContext, 'firstName' | 'senderName' | 'orgName' | 'urlTemplate' | 'extId'>, addresses: InvitationAddress[], code: string): string[] {
    const revealed: string[] = [];
    for (const address of addresses) {
      const channel = address.uid.startsWith('email:') ? 'email' : 'sms';
      const deliveryId = randomHex(4);
      const url = fillTemplate(context.urlTemplate, { INVITE_ID: inviteId, CODE: code, DELIVERY_ID: deliveryId, EXT_ID: context.extId ?? '' });
      const content = invitationMessage({ senderName: context.senderName, orgName: context.orgName, firstName: context.firstName, url, code: displayInvitationCode(code), channel });
      dependencies.messages.queue(unit, { channel, to: address.uid.slice(address.uid.indexOf(':') + 1), template: 'invitation', ...content });
      if (sandbox) revealed.push(`${code} => ${address.uid}`);
    }
    return revealed;
  }

  async function loadSent(unit: Unit, inviteId: string) {
    if (!/^\d{10}$/.test(inviteId)) return null;
    const snapshot = await unit.load(invitationKind, inviteId);
    if (!snapshot) return null;
    if (snapshot.value === 'sent' && unit.now.getTime() >= Date.parse(snapshot.context.expiresAt)) {
      unit.send(invitationKind, inviteId, { type: 'invitation.expire' });
      unit.cancelTimer(invitationKind, inviteId, 'expire');
      return 'expired_now' as const;
    }
    return snapshot.value === 'sent' ? snapshot : null;
  }

  const service: InvitationsService = {
    async inviteIn(unit, input) {
      const parsed = parseAddresses(input.email, input.phone, input.countries);
      if ('invalid' in parsed) return unit.reject({ ok: false, error: 'invalid', invalid: parsed.invalid });
      if (parsed.addresses.length === 0) return unit.reject({ ok: false, error: 'invalid', invalid: { email: 'email or phone is required' } });
      const code = newInvitationCode();
      const inviteId = await unit.newShortId('invitation');
      const expiresAt = new Date(unit.now.getTime() + invitationLifetimeMs);
      const details: InvitationDetails = {
        firstName: input.firstName, lastName: input.lastName, extId: input.extId, urlTemplate: input.urlTemplate, senderName: input.senderName,
        senderUrl: input.senderUrl, senderImageUrl: input.senderImageUrl, orgName: input.orgName, orgUrl: input.orgUrl, orgImageUrl: input.orgImageUrl,
      };
      unit.create(invitationKind, inviteId, {
        ...details,
        clientId: input.clientId,
        email: input.email ?? null,
        addresses: parsed.addresses,
        codeHash: await hashSecret(code),
        codeLength: code.length,
        expiresAt: expiresAt.toISOString(),
      });
      unit.schedule(invitationKind, inviteId, 'expire', expiresAt, { type: 'invitation.expire' });
      await store.insertInvitation(unit.tx, { id: inviteId, clientId: input.clientId, extId: input.extId }, unit.now);
      await store.setCodeDigest(unit.tx, inviteId, await codeDigest(code, unit.tx));
      const revealed = deliver(unit, inviteId, details, parsed.addresses, code);
      return { inviteId, ...(sandbox ? { revealedCodes: revealed } : {}) };
    },

    async invite(input) {
      return commands.run('invitation.invite', [], async (unit: Unit<InvitationFailure>) => ({ ok: true as const, ...(await service.inviteIn(unit, input)) }));
    },

    async get(inviteId) {
      return commands.run('invitation.get', [{ kind: invitationKind.kind, id: inviteId }], async (unit) => {
        const snapshot = await loadSent(unit, inviteId);
        if (!snapshot || snapshot === 'expired_now') return { ok: false as const, error: 'invitation_gone' as const };
        const context = snapshot.context;
        return {
          ok: true as const,
          invitation: {
            id: inviteId,
            first_name: context.firstName,
            last_name: context.lastName,
            sender_name: context.senderName,
            sender_url: context.senderUrl,
            sender_image_url: context.senderImageUrl,
            org_name: context.orgName,
            org_url: context.orgUrl,
            org_image_url: context.orgImageUrl,
            failures: context.failures,
            email: context.email,
            is_personal: isPersonalAddress(context.email, context.addresses.some((address) => address.uid.startsWith('phone:'))),
          },
        };
      });
    },

    async reinvite(clientId, inviteId, input) {
      const parsed = parseAddresses(input.email, input.phone, input.countries);
      if ('invalid' in parsed) return { ok: false, error: 'invalid', invalid: parsed.invalid };
      const code = newInvitationCode();
      const [codeHash, digest] = await Promise.all([hashSecret(code), codeDigest(code, core.sql)]);
      return commands.run('invitation.reinvite', [{ kind: invitationKind.kind, id: inviteId }], async (unit: Unit<InvitationFailure>) => {
        const snapshot = await loadSent(unit, inviteId);
        if (snapshot === 'expired_now') return { ok: false as const, error: 'invitation_gone' as const };
        if (!snapshot) return gone(unit);
        if (snapshot.context.clientId !== clientId) return unit.reject({ ok: false, error: 'not_sender' });
        if (snapshot.context.addresses.length + parsed.addresses.length > invitationAddressesMax) {
          return unit.reject({ ok: false, error: 'invalid', invalid: { email: 'too many addresses for one invitation' } });
        }
        const details: Partial<InvitationDetails> = Object.fromEntries(
          Object.entries({
            firstName: input.firstName, lastName: input.lastName, extId: input.extId, urlTemplate: input.urlTemplate, senderName: input.senderName,
            senderUrl: input.senderUrl, senderImageUrl: input.senderImageUrl, orgName: input.orgName, orgUrl: input.orgUrl, orgImageUrl: input.orgImageUrl,
          }).filter(([, value]) => value !== undefined),
        );
        const next = unit.send(invitationKind, inviteId, { type: 'invitation.reinvite', codeHash, addresses: parsed.addresses, email: input.email ?? null, details });
        if (!next) return gone(unit);
        if (details.extId !== undefined) await store.updateExtId(unit.tx, inviteId, details.extId);
        await store.setCodeDigest(unit.tx, inviteId, digest);
        const targets = parsed.addresses.length > 0 ? parsed.addresses : next.context.addresses;
        const revealed = deliver(unit, inviteId, next.context, targets, code);
        return { ok: true as const, inviteId, ...(sandbox ? { revealedCodes: revealed } : {}) };
      });
    },

    async expire(clientId, inviteId) {
      return commands.run('invitation.expire', [{ kind: invitationKind.kind, id: inviteId }], async (unit: Unit<InvitationFailure>) => {
        const snapshot = await loadSent(unit, inviteId);
        if (snapshot === 'expired_now') return { ok: false as const, error: 'invitation_gone' as const };
        if (!snapshot) return gone(unit);
        if (snapshot.context.clientId !== clientId) return unit.reject({ ok: false, error: 'not_sender' });
        unit.send(invitationKind, inviteId, { type: 'invitation.expire' });
        unit.cancelTimer(invitationKind, inviteId, 'expire');
        return { ok: true as const };
      });
    },

    async finish(profileId, clientId) {
      const accepted = await store.selectAccepted(core.sql, profileId, clientId);
      if (!accepted) return { inviteId: null, extId: null };
      await commands.run('invitation.finish', [{ kind: invitationKind.kind, id: accepted.id }], async (unit) => {
        const snapshot = await unit.load(invitationKind, accepted.id);
        if (snapshot?.value === 'sent') {
          unit.send(invitationKind, accepted.id, { type: 'invitation.expire' });
          unit.cancelTimer(invitationKind, accepted.id, 'expire');
        }
      });
      return { inviteId: accepted.id, extId: accepted.ext_id };
    },

    async loadForAcceptIn(unit, inviteId) {
      const snapshot = await loadSent(unit, inviteId);
      if (!snapshot || snapshot === 'expired_now') return null;
      const context = snapshot.context;
      return { addresses: context.addresses.map((address) => address.uid), codeHash: context.codeHash, codeLength: context.codeLength, firstName: context.firstName, lastName: context.lastName };
    },

    async verifyCodeIn(unit, inviteId, code) {
      const snapshot = await unit.load(invitationKind, inviteId);
      if (!snapshot || snapshot.value !== 'sent') return false;
      return verifySecret(snapshot.context.codeHash, code);
    },

    async recordFailureIn(unit, inviteId) {
      const snapshot = await unit.load(invitationKind, inviteId);
      if (!snapshot) return;
      const next = unit.send(invitationKind, inviteId, { type: 'invitation.code_failed' });
      if (next?.value === 'expired') unit.cancelTimer(invitationKind, inviteId, 'expire');
    },

    async findByCode(code) {
      const normalized = normalizeInvitationCode(code);
      if (normalized.length === 0) return null;
      const row = await store.selectByCodeDigest(core.sql, await codeDigest(normalized, core.sql));
      return row ? { inviteId: row.id, extId: row.ext_id } : null;
    },

    async markAcceptedIn(unit, inviteId, profileId) {
      const snapshot = await unit.load(invitationKind, inviteId);
      if (!snapshot || snapshot.value !== 'sent') return;
      unit.send(invitationKind, inviteId, { type: 'invitation.accept', profileId });
      await store.markAccepted(unit.tx, inviteId, profileId, unit.now);
    },
  };

  core.sweeper.register(invitationKind.kind, async (unit, timer) => {
    const snapshot = await unit.load(invitationKind, timer.actorId);
    if (snapshot) unit.send(invitationKind, timer.actorId, timer.event as never);
  });
  return service;
}
