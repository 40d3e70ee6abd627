// Sending and receiving cash: P2P sends (one short transaction), payment-code transfers, invitation
// transfers, retract/skip/accept/refuse/resend, and the timers that end waiting transfers.
// Every change goes through the one command path; cash moves through engine/ledger/cash.ts.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { constantTimeEqual, randomDigits } from '../ids.ts';
import { openLoopId, parseAmounts, parseSerialNumbers, sumPicks, type AmountEntry, type Note, type Pick } from '../ledger/allocation.ts';
import { balanceLockKey, balanceRowLocks, escrowHolder, movementLines, pickFromWallet, releaseEscrow, walletHolder } from '../ledger/cash.ts';
import { duplicate, failure, sendFailure, type Duplicate, type Failure, type SendError } from '../ledger/errors.ts';
import * as ledgerStore from '../ledger/store.ts';
import {
  appdataCharsMax, dayMs, dedupWindowMs, defaultCountries, invitationExpireDaysDefault, paycodeCorrectionMs, paycodeDigits, paycodeExpiryMsDefault,
  paycodeExpiryMsMax, paycodeGenerateTriesMax,
} from '../limits.ts';
import { formatMinor, parsePositiveAmount } from '../money.ts';
import { wallet } from '../profiles/machine.ts';
import type { ProfileRecord, ProfilesService } from '../profiles/service.ts';
import { parseUid } from '../uids.ts';
import type { InvitationInvalid } from '../invitations/errors.ts';
import type { InvitationsService } from '../invitations/service.ts';
import { redeemArrivedIn } from '../designs/redemption.ts';
import { holdingRulesProblem } from '../designs/rules.ts';
import { selectRedeemedDesignIds } from '../designs/store.ts';
import * as posStore from '../pos/store.ts';
import type { Queryable } from '../storage/database.ts';
import { stateFields, transfer, type TransferEvent, type TransferStateName, type WaitFor } from './machine.ts';
import * as store from './store.ts';
import { createPaycodeSecrets, normalizePaycode } from './paycode-secrets.ts';
import { insertedRow, partyFromProfile, steps, transferDetailJson, type PartyInfo } from './views.ts';

export const senderInitiatedReasons = new Set([
  'wrong_amount', 'wrong_recipient', 'invalid_address', 'never_got_invitation', 'refused', 'too_long', 'recipient_unable', 'wrong_payment_form',
  'unable_to_sign_up', 'not_available', 'computer_error', 'other',
]);
export const recipientInitiatedReasons = new Set([
  'wrong_amount', 'wrong_recipient', 'invalid_address', 'never_got_invitation', 'canceled', 'too_long', 'sender_unable', 'wrong_payment_form',
  'unable_to_sign_up', 'not_available', 'computer_error', 'other',
]);
const recipientInitiatedWorkflows = new Set(['bill']);
const bothSidesRetract = new Set(['bill']);

export interface SendInput {
  senderId: string;
  acceptedPolicy?: boolean;
  /** The app sending; invitations go out in its name. */
  clientId?: string;
  senderPersonalId: string | null;
  recipientUid: string;
  senderUid?: string;
  amounts: string;
  serialNumbers?: string;
  private: boolean;
  nonPayment: boolean;
  message?: string;
  messageSubject?: string;
  requireRecipientEmail: boolean;
  invitationType?: string;
  invitationCodeLength?: number;
  invitationExpireDays?: number;
  appdata: Record<string, string>;
  dedupId?: string;
  /** The caller's token carries closed loop cash rights only (POST /p/token, closed-loop sign-in): brand cash only. */
  closedLoopOnly?: boolean;
  /** Also answer with the TransferDetail and the sender's ProfileDetail, read in the send's own transaction. */
  withDetail?: boolean;
}

/** A send's answer as of its commit: the TransferDetail (for the sender) and the sender's ProfileDetail. */
export interface SendDetail {
  transfer: Record<string, unknown>;
  profile: Record<string, unknown>;
}

/** `detail` is there for a new transfer when the input asked for it (a duplicate is read afterwards). */
export type SendResult = { ok: true; transferId: string; duplicate: boolean; detail?: SendDetail } | Failure;

export interface ReceiveInput {
  recipientId: string;
  paycode: string;
  currency: string;
  amount: string;
  totalDue?: string;
  totalTax?: string;
  /** The calling token's device, for a business's report (`immediate` rows). */
  posDevice?: { holderId: string; deviceId: string } | null;
}

export type TransferResult = { ok: true; transferId: string } | Failure;

/** Total characters of appdata names and values. */
export function appdataChars(appdata: Record<string, string>): number {
  return Object.entries(appdata).reduce((total, [name, value]) => total + name.length + value.length, 0);
}

const noLoops: ReadonlySet<string> = new Set();

/**
 * Whether the recipient accepts this cash: open loop always; brand cash when the recipient is a
 * person, its issuer, or holds an active redeemer agreement for its design (`redeemed`).
 */
export function accepts(note: Pick | Note, recipient: ProfileRecord | null, redeemed: ReadonlySet<string> = noLoops): boolean {
  if (note.loopId === openLoopId) return true;
  if (recipient === null) return true;
  return recipient.isIndividual || note.issuerId === recipient.id || redeemed.has(note.loopId);
}

/** The designs a business recipient redeems by agreement (none for people and unknown recipients). */
export async function redeemedLoopsOf(db: Queryable, recipient: ProfileRecord | null): Promise<ReadonlySet<string>> {
  if (!recipient || recipient.isIndividual) return noLoops;
  return new Set(await selectRedeemedDesignIds(db, recipient.id));
}

/** A closed-loop token names open loop cash: refused before anything is read or locked. */
export function closedLoopRefusal(entries: readonly AmountEntry[], closedLoopOnly: boolean): Failure | null {
  if (!closedLoopOnly || !entries.some((entry) => entry.loopId === openLoopId)) return null;
  return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'amounts', info: { loop_id: openLoopId, reason: 'this token may move brand cash only' } }]);
}

const externalUidTypes = new Set(['facebook', 'twitter', 'linkedin']);

export interface ResolvedRecipient {
  uid: string;
  profile: ProfileRecord | null;
}

export interface TransfersService {
  resolveRecipient(senderId: string, recipientUid: string, senderUid: string | undefined): Promise<{ ok: true; recipient: ResolvedRecipient; senderUid: string } | Failure>;
  send(input: SendInput): Promise<SendResult>;
  receive(input: ReceiveInput): Promise<{ ok: true; transferId: string; amountReceived: bigint } | Failure>;
  retract(input: { callerId: string; permissions: ReadonlySet<string>; transferId: string; reason: string }): Promise<TransferResult>;
  skip(input: { callerId: string; transferId: string }): Promise<TransferResult>;
  changePaycodeExpiration(input: { callerId: string; transferId: string; paycode: string; expireSeconds: number }): Promise<TransferResult>;
  accept(input: { callerId: string; transferId: string; closedLoopOnly?: boolean }): Promise<TransferResult>;
  /** Accepts the waiting invitation transfer whose invitation code the caller entered (POST /wallet/accept-code). */
  acceptCode(input: { callerId: string; code: string }): Promise<TransferResult>;
  refuse(input: { callerId: string; transferId: string }): Promise<TransferResult>;
  resend(input: { callerId: string; transferId: string }): Promise<TransferResult>;
  /** Applies an event to a loaded transfer and writes its new state; the building block of every change. */
  applyIn(unit: Unit, transferId: string, event: TransferEvent, change?: Partial<store.TransferChange>): Promise<boolean>;
  /** Lets another domain deliver a transfer timer of its own (bills: bill_expire, bill_remind). */
  onTimer(name: string, handler: TransferTimerHandler): void;
  /** Lets another domain answer POST /t/<id>/accept for a workflow of its own (bills: payment). */
  onAccept(workflowType: string, handler: TransferAcceptHandler): void;
}

export type TransferTimerHandler = (unit: Unit, transferId: string, event: TransferEvent) => Promise<void>;
export type TransferAcceptHandler = (callerId: string, row: store.TransferRow, closedLoopOnly: boolean) => Promise<TransferResult>;
/** Whether a stored code is the given one: by digest, or in clear for rows older than migration 0501. */
function paycodeMatches(row: store.PaycodeRow, digest: string, code: string): boolean {
  return row.code_digest !== null ? constantTimeEqual(row.code_digest, digest) : row.code !== '' && constantTimeEqual(row.code, code);
}

export function createTransfersService(core: Core, profiles: ProfilesService, invitations?: InvitationsService): TransfersService {
  const { sql, commands } = core;
  const paycodeSecrets = createPaycodeSecrets(core);

  async function resolveRecipient(senderId: string, recipientUid: string, senderUid: string | undefined) {
    const parsed = parseUid(recipientUid);
    if (!parsed) return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { reason: 'not a UID' } }]);
    let chosenSenderUid = `service:${senderId}`;
    if (senderUid !== undefined) {
      const parsedSender = parseUid(senderUid);
      const confirmed = await profiles.confirmedUids(sql, senderId);
      if (!parsedSender || (parsedSender.uid !== chosenSenderUid && !confirmed.includes(parsedSender.uid))) {
        return sendFailure([{ code: 'sender_uid_not_confirmed', field_name: 'sender_uid', info: {} }]);
      }
      chosenSenderUid = parsedSender.uid;
    }
    const senderType = chosenSenderUid.slice(0, chosenSenderUid.indexOf(':'));
    if ((externalUidTypes.has(parsed.type) || externalUidTypes.has(senderType)) && parsed.type !== senderType) {
      return sendFailure([{ code: 'uid_type_mismatch', field_name: 'recipient_uid', info: { sender_uid_type: senderType, recipient_uid_type: parsed.type } }]);
    }
    const profile = await profiles.findByUid(core.database.lookups, parsed.uid);
    if (!profile && parsed.type !== 'email' && parsed.type !== 'phone') {
      return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { uid: parsed.uid } }]);
    }
    if (profile && profile.id === senderId) return sendFailure([{ code: 'recipient_is_sender', field_name: 'recipient_uid', info: {} }]);
    // Usernames resolve to the service UID of their profile.
    const uid = profile && (parsed.type === 'username' || parsed.type === 'service') ? `service:${profile.id}` : parsed.uid;
    return { ok: true as const, recipient: { uid, profile }, senderUid: chosenSenderUid };
  }

  /** Gives the transfer a free payment code; returns the code. */
  async function newPaycode(unit: Unit, row: { transferId: string; senderId: string; recipientId: string; currency: string; amount: bigint; expiresAt: Date }): Promise<string> {
    for (let tries = 0; tries < paycodeGenerateTriesMax; tries++) {
      const code = randomDigits(paycodeDigits);
      const codeDigest = await paycodeSecrets.digest(unit.tx, code);
      const codeSealed = await paycodeSecrets.seal(unit.tx, code);
      if (await store.insertPaycode(unit.tx, { codeDigest, codeSealed, ...row }, unit.now)) return code;
    }
    throw new Error('could not find a free payment code');
  }

  async function applyIn(unit: Unit, transferId: string, event: TransferEvent, change: Partial<store.TransferChange> = {}): Promise<boolean> {
    const next = unit.send(transfer, transferId, event);
    if (!next) return false;
    await store.updateTransfer(unit.tx, transferId, {
      state: stateFields(next.value as TransferStateName),
      endAt: next.context.endAt ? new Date(next.context.endAt) : null,
      activityCount: next.context.activityCount,
      reason: next.context.reason,
      ...change,
    }, unit.now);
    return true;
  }

  /** Loads a transfer actor and its row inside a command; null when missing. */
  async function findIn(unit: Unit, transferId: string) {
    const snapshot = await unit.load(transfer, transferId);
    const row = await store.selectTransfer(unit.tx, transferId);
    return snapshot && row ? { snapshot, row, state: snapshot.value as TransferStateName } : null;
  }

  /** Loads a transfer actor and its row inside a command; rejects when missing. */
  async function loadIn(unit: Unit<Failure>, transferId: string) {
    return (await findIn(unit, transferId)) ?? unit.reject(failure('transfer_not_found'));
  }

  async function send(input: SendInput): Promise<SendResult> {
    // Checks that need no lock come first, in a fixed order.
    const amounts = parseAmounts(input.amounts);
    if (!amounts.ok) return sendFailure(amounts.errors);
    const refused = closedLoopRefusal(amounts.value, input.closedLoopOnly === true);
    if (refused) return refused;
    const serials = parseSerialNumbers(input.serialNumbers);
    if (!serials.ok) return sendFailure(serials.errors);
    if (appdataChars(input.appdata) > appdataCharsMax) {
      return sendFailure([{ code: 'appdata_too_long', field_name: 'appdata', info: { max: appdataCharsMax } }]);
    }
    // The dedup key and the recipient are read together; a repeat answers before the recipient counts.
    const [existing, resolved] = await Promise.all([
      input.dedupId === undefined ? null : findDuplicate(input.senderId, input.dedupId),
      resolveRecipient(input.senderId, input.recipientUid, input.senderUid),
    ]);
    if (existing) return { ok: true, transferId: existing, duplicate: true };
    if (!resolved.ok) return resolved;
    const recipient = resolved.recipient.profile;
    const redeemed = await redeemedLoopsOf(sql, recipient);
    let waitFor: WaitFor = 'none';
    if (!recipient) waitFor = 'invite';
    else if (input.requireRecipientEmail && !(await profiles.confirmedUids(sql, recipient.id)).some((uid) => uid.startsWith('email:'))) waitFor = 'invite';
    else if (!recipient.isIndividual && recipient.supportPaycode) waitFor = 'paycode';
    const entries: AmountEntry[] = amounts.value;
    const currency = entries[0].currency;

    // Sends share transactions: every write is a new row, the sender's notes and dedup key (under
    // the sender's lock) or a relative balance change, so sends of different wallets commit together.
    // The balances they change are taken first for the whole shared transaction, in order.
    const balanceKeys = [input.senderId, ...(recipient && waitFor === 'none' ? [recipient.id] : [])].map((profileId) => balanceLockKey(profileId, currency));
    const result = await commands.run('transfer.send', [{ kind: 'wallet', id: input.senderId }], async (unit: Unit<Failure | Duplicate | InvitationInvalid>) => {
      // Independent statements go out together (postgres.js pipelines them on the transaction's
      // connection), so a send costs few round trips while it holds the sender's lock.
      const at = unit.now;
      const pick = () => pickFromWallet(unit.tx, input.senderId, entries, serials.value, {
        recipientId: recipient?.id ?? null,
        accepts: (note) => accepts(note, recipient, redeemed),
        nonPayment: input.nonPayment,
        recipientIsIndividual: recipient === null || recipient.isIndividual,
        brandCashOnly: input.closedLoopOnly === true,
      });
      // One statement takes the transfer's id number, reads the recipient wallet's state and locks
      // the balances; the sender's wallet is loaded row-locked, so an operator's suspension and a
      // send never cross.
      const begun = () => store.beginSend(unit.tx, {
        lockProfileIds: recipient && waitFor === 'none' ? [input.senderId, recipient.id] : [input.senderId], currency, recipientId: recipient?.id ?? null,
      });
      let transferId: string;
      let picked: Awaited<ReturnType<typeof pick>>;
      let senderWallet: Awaited<ReturnType<typeof unit.load<typeof wallet>>>;
      let recipientWalletState: string | null;
      if (input.dedupId === undefined) {
        const [started, pickedNow, senderNow] = await Promise.all([begun(), pick(), unit.load(wallet, input.senderId)]);
        transferId = core.ids.long(started.sequence, 'transfer');
        [picked, senderWallet, recipientWalletState] = [pickedNow, senderNow, started.recipientWalletState];
      } else {
        const started = await begun();
        transferId = core.ids.long(started.sequence, 'transfer');
        const [claimed, pickedNow, senderNow] = await Promise.all([
          store.claimDedup(unit.tx, input.senderId, input.dedupId, transferId, at, new Date(at.getTime() - dedupWindowMs)), pick(), unit.load(wallet, input.senderId),
        ]);
        if (!claimed) return unit.reject(duplicate());
        [picked, senderWallet, recipientWalletState] = [pickedNow, senderNow, started.recipientWalletState];
      }
      if (!senderWallet || senderWallet.value !== 'active') {
        return unit.reject(sendFailure([{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: senderWallet?.value ?? null } }]));
      }
      if (recipientWalletState === 'closed') return unit.reject(sendFailure([{ code: 'recipient_wallet_closed', field_name: 'recipient_uid', info: {} }]));
      if (!picked.ok) return unit.reject(sendFailure(picked.errors));
      const picks = picked.value;
      const rulesProblem = await holdingRulesProblem(unit.tx, picks, input.senderId, { id: recipient?.id ?? null, isIndividual: recipient?.isIndividual ?? true }, redeemed);
      if (rulesProblem) return unit.reject(sendFailure([rulesProblem]));
      const amount = sumPicks(picks);
      const nonPayment = picks.some((pick) => !accepts(pick, recipient, redeemed));
      const workflowType = nonPayment ? 'non_payment' : 'profile_to_profile';
      const paycodeExpiresAt = waitFor === 'paycode' ? new Date(at.getTime() + paycodeExpiryMsDefault) : null;
      const snapshot = unit.create(transfer, transferId, { workflowType, waitFor, at: at.toISOString(), paycodeExpiresAt: paycodeExpiresAt?.toISOString() ?? null });
      const views = [{ profileId: input.senderId, role: 'sender' }];
      if (recipient && waitFor !== 'invite') views.push({ profileId: recipient.id, role: 'recipient' });
      const details: Record<string, unknown> = {};
      if (input.acceptedPolicy) details.accepted_policy = true;
      if (input.nonPayment) details.non_payment = true;
      if (waitFor === 'invite') {
        const expireDays = input.invitationExpireDays ?? invitationExpireDaysDefault;
        const expiresAt = new Date(at.getTime() + expireDays * dayMs);
        details.sent_count = 1;
        details.alarms = [{ name: 'alarm.expire_invitation', timestamp: expiresAt.toISOString() }];
        details.invitation_type = input.invitationType ?? 'link';
        unit.schedule(transfer, transferId, 'invite_expire', expiresAt, { type: 'transfer.invite_expire', at: expiresAt.toISOString() });
        const recipientUid = resolved.recipient.uid;
        const address = recipientUid.startsWith('email:') ? { email: recipientUid.slice(6) } : recipientUid.startsWith('phone:') ? { phone: recipientUid.slice(6) } : null;
        if (invitations && input.clientId && address) {
          // The invitation is created in this same transaction: no transfer without its message.
          const sender = await profiles.get(unit.tx, input.senderId);
          const invited = await invitations.inviteIn(unit, {
            clientId: input.clientId, ...address, countries: defaultCountries, firstName: '', lastName: '', extId: transferId,
            urlTemplate: `${core.config.publicUrl}/t/EXT_ID?invite=INVITE_ID&code=CODE`, senderName: sender?.title ?? '',
            senderUrl: null, senderImageUrl: null, orgName: null, orgUrl: null, orgImageUrl: null,
          });
          details.invite_id = invited.inviteId;
          details.invite_client_id = input.clientId;
        }
      }
      const row: store.NewTransfer = {
        id: transferId, workflowType, senderId: input.senderId, senderUid: resolved.senderUid,
        recipientId: waitFor === 'invite' ? null : (recipient?.id ?? null), recipientUid: resolved.recipient.uid,
        senderPersonalId: input.senderPersonalId, recipientPersonalId: recipient && recipient.isIndividual && waitFor === 'none' ? recipient.id : null,
        currency, amount, at, state: stateFields(snapshot.value as TransferStateName), endAt: snapshot.context.endAt ? at : null,
        activityCount: snapshot.context.activityCount, private: input.private, message: input.message ?? null, messageSubject: input.messageSubject ?? null,
        appdata: input.appdata, details,
      };
      const lines = waitFor === 'none' ? movementLines(picks, 1, 'move', input.senderId, recipient!.id) : [];
      // The writes and the sender's ProfileDetail go out in one round trip; the detail's reads are
      // queued after the writes on the same connection, so its holdings are those after the send.
      const [, , profileDetail] = await Promise.all([
        store.insertTransfer(unit.tx, row, views),
        waitFor === 'none'
          ? ledgerStore.moveNotes(unit.tx, walletHolder(input.senderId), walletHolder(recipient!.id), picks, at, { transferId, lines })
          : ledgerStore.moveNotes(unit.tx, walletHolder(input.senderId), escrowHolder(transferId), picks, at),
        input.withDetail ? profiles.detail(unit.tx, input.senderId) : Promise.resolve(null),
      ]);
      // Brand cash that reaches a redeemer by agreement is redeemed and settled in this command.
      if (waitFor === 'none' && !nonPayment && picks.some((pick) => redeemed.has(pick.loopId) && pick.issuerId !== recipient!.id)) {
        await redeemArrivedIn(unit, { transferId, redeemerId: recipient!.id, designIds: [...redeemed], number: 2 });
      }
      let paycode: store.PaycodeRow | null = null;
      if (waitFor === 'paycode') {
        const paycodeRow = { transferId, senderId: input.senderId, recipientId: recipient!.id, currency, amount, expiresAt: paycodeExpiresAt! };
        const code = await newPaycode(unit, paycodeRow);
        unit.schedule(transfer, transferId, 'paycode_expire', paycodeExpiresAt!, { type: 'transfer.paycode_expire', at: paycodeExpiresAt!.toISOString() });
        // The sender sees the code here; later reads open it from its sealed form (sender only).
        paycode = {
          code, code_digest: null, code_sealed: null, transfer_id: transferId, sender_id: input.senderId, recipient_id: recipient!.id, currency, amount, received: 0n,
          created_at: at, modified_at: at, expires_at: paycodeExpiresAt!, used_at: null, state: 'active',
        };
      }
      if (!profileDetail) return { ok: true as const, transferId, duplicate: false };
      // The TransferDetail is built from what this command wrote, as a read would return it.
      const parties = new Map<string, PartyInfo>();
      parties.set(input.senderId, partyFromProfile(input.senderId, profileDetail.title as string, profileDetail.username as string | null, profileDetail.is_individual as boolean));
      if (row.recipientId !== null) parties.set(recipient!.id, partyFromProfile(recipient!.id, recipient!.title, recipient!.username, recipient!.isIndividual));
      const inserted = insertedRow(row);
      const stakeholders = views.map((view) => ({ profile_id: view.profileId, role: view.role }))
        .sort((left, right) => (left.profile_id < right.profile_id ? -1 : left.profile_id > right.profile_id ? 1 : left.role < right.role ? -1 : left.role > right.role ? 1 : 0));
      const transferDetail = transferDetailJson(inserted, ledgerStore.movementRows(transferId, lines, at), parties, {
        viewerId: input.senderId, paycode, publicUrl: core.config.publicUrl, stakeholders, steps: steps(inserted),
      });
      return { ok: true as const, transferId, duplicate: false, detail: { transfer: transferDetail, profile: profileDetail } };
    }, { shared: { rows: balanceRowLocks, keys: balanceKeys } });
    if (!result.ok && result.error === 'invalid') {
      // The invitations domain refused the address.
      return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { invalid: result.invalid ?? null } }]);
    }
    if (!result.ok && result.error === 'duplicate') {
      const existing = await store.selectDedup(sql, input.senderId, input.dedupId!);
      if (!existing) throw new Error('dedup key vanished');
      return { ok: true, transferId: existing, duplicate: true };
    }
    return result;
  }

  async function findDuplicate(senderId: string, dedupId: string): Promise<string | null> {
    const rows = await store.selectDedupRow(sql, senderId, dedupId);
    if (!rows) return null;
    return rows.created_at.getTime() >= core.clock.now().getTime() - dedupWindowMs ? rows.transfer_id : null;
  }

  /** Moves `amount` of the currency between two wallets inside a command (paycode corrections). */
  async function moveBetweenWallets(unit: Unit, fromId: string, toId: string, currency: string, amount: bigint, recipient: ProfileRecord | null): Promise<Pick[] | null> {
    // Both balances in the one order every balance lock uses, before either changes.
    await ledgerStore.lockBalances(unit.tx, [balanceLockKey(fromId, currency), balanceLockKey(toId, currency)]);
    const picked = await pickFromWallet(unit.tx, fromId, [{ loopId: 'any', currency, minor: amount }], null, {
      recipientId: toId,
      accepts: (note) => accepts(note, recipient),
      nonPayment: recipient === null,
    });
    if (!picked.ok) return null;
    await ledgerStore.moveNotes(unit.tx, walletHolder(fromId), walletHolder(toId), picked.value, unit.now);
    return picked.value;
  }

  async function receive(input: ReceiveInput) {
    const parsed = parsePositiveAmount(input.amount, input.currency);
    if (!parsed.ok) return failure('invalid_amount', `amount: ${parsed.error}`);
    const amount = parsed.value.minor;
    let totalDue: bigint | null = null;
    if (input.totalDue !== undefined) {
      const due = parsePositiveAmount(input.totalDue, input.currency);
      if (!due.ok || due.value.minor < amount) return failure('invalid_amount', 'total_due must be at least amount');
      totalDue = due.value.minor;
    }
    if (input.totalTax !== undefined) {
      const tax = parsePositiveAmount(input.totalTax, input.currency);
      if (!tax.ok && tax.error !== 'not_positive') return failure('invalid_amount', 'total_tax is not an amount');
      const taxMinor = tax.ok ? tax.value.minor : 0n;
      if (taxMinor > (totalDue ?? amount)) return failure('invalid_amount', 'total_tax must be at most total_due');
    }
    const code = normalizePaycode(input.paycode);
    const digest = await paycodeSecrets.digest(sql, code);
    const found = await store.selectPaycodeByCode(sql, digest, code);
    if (!found || found.recipient_id !== input.recipientId) return failure('code_not_found');
    if (found.currency !== input.currency || amount > found.amount) return failure('code_limited', `the code releases at most ${formatMinor(found.amount, found.currency)} ${found.currency}`);
    const recipient = await profiles.get(sql, input.recipientId);
    const locks = [{ kind: 'wallet', id: found.sender_id }, { kind: 'wallet', id: found.recipient_id }, { kind: 'transfer', id: found.transfer_id }];
    // A business's open loop receipts are rows of its received-and-receivable report (settled at once).
    const reportImmediateIn = async (unit: Unit, transferId: string, picks: readonly Pick[], sign: 1n | -1n) => {
      const openLoop = picks.filter((pick) => pick.loopId === openLoopId).reduce((total, pick) => total + pick.amount, 0n);
      if (!recipient || recipient.isIndividual || openLoop === 0n) return;
      await posStore.addImmediateReceivable(unit.tx, { profileId: recipient.id, transferId, currency: input.currency, delta: sign * openLoop, posDevice: input.posDevice ?? null }, unit.now);
    };
    return commands.run('transfer.receive', locks, async (unit: Unit<Failure>) => {
      const { state } = await loadIn(unit, found.transfer_id);
      const paycode = await store.selectPaycodeByTransfer(unit.tx, found.transfer_id);
      if (!paycode || !paycodeMatches(paycode, digest, code) || paycode.state === 'ended') return unit.reject(failure('code_not_found'));
      const details = { total_due: totalDue === null ? null : formatMinor(totalDue, input.currency), total_tax: input.totalTax ?? null };
      if (state === 'paycode') {
        const picks = await releaseEscrow(unit.tx, found.transfer_id, found.recipient_id, found.sender_id, amount, unit.now);
        await ledgerStore.insertMovements(unit.tx, found.transfer_id, movementLines(picks, 1, 'move', found.sender_id, found.recipient_id), unit.now);
        await reportImmediateIn(unit, found.transfer_id, picks, 1n);
        await store.updatePaycode(unit.tx, found.transfer_id, { state: 'used', received: amount, usedAt: unit.now }, unit.now);
        unit.cancelTimer(transfer, found.transfer_id, 'paycode_expire');
        await applyIn(unit, found.transfer_id, { type: 'transfer.paycode_receive', at: unit.now.toISOString() }, {
          amount, details: { ...details, amount_received: formatMinor(amount, input.currency) },
        });
        return { ok: true as const, transferId: found.transfer_id, amountReceived: amount };
      }
      const withinCorrection = paycode.used_at !== null && unit.now.getTime() - paycode.used_at.getTime() <= paycodeCorrectionMs;
      if (state !== 'completed' || paycode.state !== 'used' || !withinCorrection) return unit.reject(failure('code_already_used'));
      // The correction period: resubmitting the code changes the amount received.
      if (amount !== paycode.received) {
        const number = await ledgerStore.nextMovementNumber(unit.tx, found.transfer_id);
        if (amount > paycode.received) {
          const picks = await moveBetweenWallets(unit, found.sender_id, found.recipient_id, input.currency, amount - paycode.received, recipient);
          if (!picks) return unit.reject(failure('code_limited', 'the sender no longer holds enough cash'));
          await ledgerStore.insertMovements(unit.tx, found.transfer_id, movementLines(picks, number, 'move', found.sender_id, found.recipient_id), unit.now);
          await reportImmediateIn(unit, found.transfer_id, picks, 1n);
        } else {
          const picks = await moveBetweenWallets(unit, found.recipient_id, found.sender_id, input.currency, paycode.received - amount, null);
          if (!picks) return unit.reject(failure('code_limited', 'the recipient no longer holds enough cash to refund'));
          await ledgerStore.insertMovements(unit.tx, found.transfer_id, movementLines(picks, number, 'refund', found.recipient_id, found.sender_id), unit.now);
          await reportImmediateIn(unit, found.transfer_id, picks, -1n);
        }
        await store.updatePaycode(unit.tx, found.transfer_id, { received: amount }, unit.now);
        await applyIn(unit, found.transfer_id, { type: 'transfer.paycode_correct', at: unit.now.toISOString() }, {
          amount, details: { ...details, amount_received: formatMinor(amount, input.currency) },
        });
      }
      return { ok: true as const, transferId: found.transfer_id, amountReceived: amount };
    });
  }

  /** Ends a waiting transfer and returns its escrow to the sender. */
  async function cancelIn(unit: Unit, transferId: string, senderId: string, event: TransferEvent): Promise<boolean> {
    if (!(await applyIn(unit, transferId, event))) return false;
    await releaseEscrow(unit.tx, transferId, senderId, senderId, 0n, unit.now);
    const paycode = await store.selectPaycodeByTransfer(unit.tx, transferId);
    if (paycode && paycode.state === 'active') await store.updatePaycode(unit.tx, transferId, { state: 'ended' }, unit.now);
    for (const name of ['paycode_expire', 'invite_expire', 'hold_end', 'trade_expire', 'bill_expire', 'bill_remind']) unit.cancelTimer(transfer, transferId, name);
    return true;
  }

  async function retract(input: { callerId: string; permissions: ReadonlySet<string>; transferId: string; reason: string }): Promise<TransferResult> {
    const row = await store.selectTransfer(sql, input.transferId);
    if (!row || !(await store.isViewer(sql, input.transferId, input.callerId))) return failure('transfer_not_found');
    const recipientInitiated = recipientInitiatedWorkflows.has(row.workflow_type);
    const initiator = recipientInitiated ? row.recipient_id : row.sender_id;
    // A bill may be canceled by either side; the reasons are always those of its initiator.
    const otherSide = bothSidesRetract.has(row.workflow_type) && (recipientInitiated ? row.sender_id : row.recipient_id) === input.callerId;
    if (initiator !== input.callerId && !otherSide) return failure('not_initiator');
    const callerIsRecipient = row.recipient_id === input.callerId && (recipientInitiated ? !otherSide : otherSide);
    const needed = callerIsRecipient ? 'manage_received' : 'manage_sent';
    if (!input.permissions.has(needed)) return failure('wrong_permission', needed);
    if (!(recipientInitiated ? recipientInitiatedReasons : senderInitiatedReasons).has(input.reason)) return failure('invalid_reason');
    return commands.run('transfer.retract', [{ kind: 'wallet', id: row.sender_id! }, { kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
      await loadIn(unit, row.id);
      if (!(await cancelIn(unit, row.id, row.sender_id!, { type: 'transfer.retract', at: unit.now.toISOString(), reason: input.reason }))) {
        return unit.reject(failure('cannot_retract'));
      }
      return { ok: true as const, transferId: row.id };
    });
  }

  async function skip(input: { callerId: string; transferId: string }): Promise<TransferResult> {
    const row = await store.selectTransfer(sql, input.transferId);
    if (!row || !(await store.isViewer(sql, input.transferId, input.callerId))) return failure('transfer_not_found');
    if (row.sender_id !== input.callerId) return failure('not_initiator');
    return commands.run('transfer.skip', [{ kind: 'wallet', id: row.sender_id }, { kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
      const { state } = await loadIn(unit, row.id);
      if (state === 'paycode') {
        const picks = await releaseEscrow(unit.tx, row.id, row.recipient_id!, row.sender_id!, null, unit.now);
        await ledgerStore.insertMovements(unit.tx, row.id, movementLines(picks, 1, 'move', row.sender_id, row.recipient_id!), unit.now);
        await store.updatePaycode(unit.tx, row.id, { state: 'ended' }, unit.now);
        unit.cancelTimer(transfer, row.id, 'paycode_expire');
        await applyIn(unit, row.id, { type: 'transfer.skip', at: unit.now.toISOString() });
      } else if (state === 'holding') {
        unit.cancelTimer(transfer, row.id, 'hold_end');
        await applyIn(unit, row.id, { type: 'transfer.skip', at: unit.now.toISOString() });
        unit.emit('payout.send', { transferId: row.id });
      } else {
        return unit.reject(failure('not_waiting'));
      }
      return { ok: true as const, transferId: row.id };
    });
  }

  async function changePaycodeExpiration(input: { callerId: string; transferId: string; paycode: string; expireSeconds: number }): Promise<TransferResult> {
    const row = await store.selectTransfer(sql, input.transferId);
    if (!row || !(await store.isViewer(sql, input.transferId, input.callerId))) return failure('transfer_not_found');
    if (row.sender_id !== input.callerId) return failure('not_initiator');
    if (input.expireSeconds * 1000 > paycodeExpiryMsMax) return failure('invalid_amount', 'expire_seconds is more than 10 years');
    return commands.run('transfer.paycode_extend', [{ kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
      const { state } = await loadIn(unit, row.id);
      const paycode = await store.selectPaycodeByTransfer(unit.tx, row.id);
      if (state !== 'paycode' || !paycode || paycode.state !== 'active') return unit.reject(failure('not_waiting'));
      const given = normalizePaycode(input.paycode);
      if (!paycodeMatches(paycode, await paycodeSecrets.digest(unit.tx, given), given)) return unit.reject(failure('paycode_mismatch'));
      const expiresAt = new Date(unit.now.getTime() + input.expireSeconds * 1000);
      await store.updatePaycode(unit.tx, row.id, { expiresAt }, unit.now);
      unit.schedule(transfer, row.id, 'paycode_expire', expiresAt, { type: 'transfer.paycode_expire', at: expiresAt.toISOString() });
      await applyIn(unit, row.id, { type: 'transfer.paycode_extend', at: unit.now.toISOString(), expiresAt: expiresAt.toISOString() });
      return { ok: true as const, transferId: row.id };
    });
  }

  /** The caller owns the invitation's recipient UID. */
  async function ownsRecipientUid(callerId: string, row: store.TransferRow): Promise<boolean> {
    if (!row.recipient_uid) return false;
    if (row.recipient_uid === `service:${callerId}`) return true;
    return (await profiles.confirmedUids(sql, callerId)).includes(row.recipient_uid);
  }

  /** Moves a waiting invitation's escrow to the accepting profile, which becomes its recipient. */
  async function acceptInvitationIn(unit: Unit<Failure>, row: store.TransferRow, callerId: string, callerIsIndividual: boolean): Promise<void> {
    const { state } = await loadIn(unit, row.id);
    if (state !== 'invite') return unit.reject(failure('not_waiting'));
    const picks = await releaseEscrow(unit.tx, row.id, callerId, row.sender_id!, null, unit.now);
    const rulesProblem = await holdingRulesProblem(unit.tx, picks, row.sender_id!, { id: callerId, isIndividual: callerIsIndividual }, await redeemedLoopsOf(unit.tx, await profiles.get(unit.tx, callerId)), true);
    if (rulesProblem) return unit.reject(sendFailure([rulesProblem]));
    await ledgerStore.insertMovements(unit.tx, row.id, movementLines(picks, 1, 'move', row.sender_id, callerId), unit.now);
    unit.cancelTimer(transfer, row.id, 'invite_expire');
    await applyIn(unit, row.id, { type: 'transfer.invite_accept', at: unit.now.toISOString() }, {
      recipientId: callerId, recipientPersonalId: callerIsIndividual ? callerId : null,
      addViews: [{ profileId: callerId, role: 'recipient' }],
    });
  }

  async function accept(input: { callerId: string; transferId: string; closedLoopOnly?: boolean }): Promise<TransferResult> {
    const row = await store.selectTransfer(sql, input.transferId);
    if (!row) return failure('transfer_not_found');
    const delegated = acceptHandlers.get(row.workflow_type);
    if (delegated) return delegated(input.callerId, row, input.closedLoopOnly === true);
    if (!(await ownsRecipientUid(input.callerId, row))) return failure('not_recipient');
    const caller = await profiles.get(sql, input.callerId);
    return commands.run('transfer.accept', [{ kind: 'wallet', id: input.callerId }, { kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
      await acceptInvitationIn(unit, row, input.callerId, caller?.isIndividual ?? false);
      return { ok: true as const, transferId: row.id };
    });
  }

  async function acceptCode(input: { callerId: string; code: string }): Promise<TransferResult> {
    // Holding the code proves the invitation reached its holder, as following its link does.
    const found = invitations ? await invitations.findByCode(input.code) : null;
    const row = found?.extId ? await store.selectTransfer(sql, found.extId) : null;
    if (!found || !row || row.details?.invite_id !== found.inviteId) return failure('invitation_code_not_found');
    if (row.sender_id === input.callerId) return failure('own_invitation');
    const caller = await profiles.get(sql, input.callerId);
    const locks = [{ kind: 'wallet', id: input.callerId }, { kind: 'transfer', id: row.id }, { kind: 'invitation', id: found.inviteId }];
    return commands.run('transfer.accept_code', locks, async (unit: Unit<Failure>) => {
      await acceptInvitationIn(unit, row, input.callerId, caller?.isIndividual ?? false);
      await invitations!.markAcceptedIn(unit, found.inviteId, input.callerId);
      return { ok: true as const, transferId: row.id };
    });
  }

  async function refuse(input: { callerId: string; transferId: string }): Promise<TransferResult> {
    const row = await store.selectTransfer(sql, input.transferId);
    if (!row) return failure('transfer_not_found');
    if (!(await ownsRecipientUid(input.callerId, row))) return failure('not_recipient');
    return commands.run('transfer.refuse', [{ kind: 'wallet', id: row.sender_id! }, { kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
      await loadIn(unit, row.id);
      if (!(await cancelIn(unit, row.id, row.sender_id!, { type: 'transfer.invite_refuse', at: unit.now.toISOString() }))) return unit.reject(failure('not_waiting'));
      return { ok: true as const, transferId: row.id };
    });
  }

  async function resend(input: { callerId: string; transferId: string }): Promise<TransferResult> {
    const row = await store.selectTransfer(sql, input.transferId);
    if (!row || !(await store.isViewer(sql, input.transferId, input.callerId))) return failure('transfer_not_found');
    if (row.sender_id !== input.callerId) return failure('not_initiator');
    return commands.run('transfer.resend', [{ kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
      const { snapshot } = await loadIn(unit, row.id);
      if (!(await applyIn(unit, row.id, { type: 'transfer.invite_resend', at: unit.now.toISOString() }, { details: { sent_count: snapshot.context.sentCount + 1 } }))) {
        return unit.reject(failure('not_waiting'));
      }
      unit.emit('transfer.invitation', { transferId: row.id, senderId: row.sender_id, recipientUid: row.recipient_uid, resend: true });
      return { ok: true as const, transferId: row.id };
    });
  }

  // Durable timers of transfers: paycode expiry and invitation expiry cancel and release the escrow.
  const timerHandlers = new Map<string, TransferTimerHandler>();
  const acceptHandlers = new Map<string, TransferAcceptHandler>();

  core.sweeper.register('transfer', async (unit, timer) => {
    const extra = timerHandlers.get(timer.name);
    if (extra) return extra(unit, timer.actorId, timer.event as TransferEvent);
    // A timer is written with its transfer, so a missing one is a fault (logged, retried), not a refusal.
    const found = await findIn(unit, timer.actorId);
    if (!found) throw new Error(`transfer ${timer.actorId} of timer ${timer.name} is missing`);
    const { row } = found;
    if (timer.name === 'paycode_expire' || timer.name === 'invite_expire' || timer.name === 'trade_expire') {
      await cancelIn(unit, row.id, row.sender_id!, timer.event as TransferEvent);
      return;
    }
    if (timer.name === 'hold_end') {
      if (await applyIn(unit, row.id, timer.event as TransferEvent)) unit.emit('payout.send', { transferId: row.id });
      return;
    }
    throw new Error(`unknown transfer timer ${timer.name}`);
  });

  return {
    resolveRecipient, send, receive, retract, skip, changePaycodeExpiration, accept, acceptCode, refuse, resend, applyIn,
    onTimer: (name, handler) => void timerHandlers.set(name, handler),
    onAccept: (workflowType, handler) => void acceptHandlers.set(workflowType, handler),
  };
}

export type { SendError };
