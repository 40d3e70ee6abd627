// Invitations to join: an app invites a person by email and/or phone; the message carries a link
// built from url_template and a code (digits and upper-case letters, dashes ignored). The code is
// kept only as an argon2 hash. Accepting happens through an authentication attempt (intent accept).
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import type { MessagesService } from '../messages/service.ts';
import { checkCodeAhead, codeStandsIn, loadForAcceptIn, markAcceptedIn, recordFailureIn, type InvitationCodeVerdict, type InvitationForAccept } from './accept.ts';
import { findByCode } from './codes.ts';
import type { InvitationsContext } from './context.ts';
import type { InvitationFailure, InvitationInvalid } from './errors.ts';
import type { ReadyCode } from '../passwords.ts';
import { invite, inviteIn, makeInvitationCodes, reinvite, type InviteInput, type ReinviteInput } from './invite.ts';
import { expire, finish, get, registerExpirySweep } from './sent.ts';

export { isPersonalAddress, parseAddresses } from './addresses.ts';
export { displayInvitationCode, newInvitationCode, normalizeInvitationCode } from './codes.ts';
export type { InvitationCodeVerdict, InvitationForAccept } from './accept.ts';
export type { InviteInput, ReinviteInput } from './invite.ts';

export interface InvitationsService {
  /** A new one-address invitation's code and its hash, made before the command that calls inviteIn with it. */
  makeCode(length?: number): Promise<ReadyCode>;
  /** Creates and sends an invitation to one address inside the caller's command (a send that requires an email). */
  inviteIn(unit: Unit<InvitationInvalid>, input: InviteInput, code: ReadyCode): Promise<{ inviteId: string; revealedCodes?: string[] }>;
  invite(input: InviteInput): Promise<{ ok: true; inviteId: string; revealedCodes?: string[] } | InvitationFailure>;
  get(inviteId: string): Promise<{ ok: true; invitation: Record<string, unknown> } | InvitationFailure>;
  reinvite(clientId: string, inviteId: string, input: ReinviteInput): Promise<{ ok: true; inviteId: string; revealedCodes?: string[] } | InvitationFailure>;
  expire(clientId: string, inviteId: string): Promise<{ ok: true } | InvitationFailure>;
  /** Expires the invitation the profile accepted through this app; repeatable. */
  finish(profileId: string, clientId: string): Promise<{ inviteId: string | null; extId: string | null }>;
  loadForAcceptIn(unit: Unit, inviteId: string): Promise<InvitationForAccept | null>;
  /** Checks an accept attempt's code (argon2) before its command, against the code sent to `uid`, read without a lock. */
  checkCodeAhead(inviteId: string, uid: string, code: string): Promise<InvitationCodeVerdict>;
  /** Inside the command: the verdict stands while the invitation still has the hash it was checked against. */
  codeStandsIn(unit: Unit, inviteId: string, uid: string, verdict: InvitationCodeVerdict | null): Promise<boolean>;
  recordFailureIn(unit: Unit, inviteId: string): Promise<void>;
  markAcceptedIn(unit: Unit, inviteId: string, profileId: string): Promise<void>;
  /** The invitation whose current code this is (a keyed digest lookup; a match proves the code). */
  findByCode(code: string): Promise<{ inviteId: string; extId: string | null } | null>;
}

export function createInvitationsService(core: Core, dependencies: { messages: MessagesService }): InvitationsService {
  const ctx: InvitationsContext = { core, messages: dependencies.messages, sandbox: core.config.mode === 'sandbox', digestKey: null };
  const service: InvitationsService = {
    makeCode: async (length) => (await makeInvitationCodes(1, length))[0],
    inviteIn: (unit, input, code) => inviteIn(ctx, unit, input, [code]),
    invite: (input) => invite(ctx, input),
    get: (inviteId) => get(ctx, inviteId),
    reinvite: (clientId, inviteId, input) => reinvite(ctx, clientId, inviteId, input),
    expire: (clientId, inviteId) => expire(ctx, clientId, inviteId),
    finish: (profileId, clientId) => finish(ctx, profileId, clientId),
    loadForAcceptIn,
    checkCodeAhead: (inviteId, uid, code) => checkCodeAhead(ctx, inviteId, uid, code),
    codeStandsIn,
    recordFailureIn,
    findByCode: (code) => findByCode(ctx, code),
    markAcceptedIn,
  };
  registerExpirySweep(ctx);
  return service;
}
