// Point of sale: merchants pull brand cash at a terminal with the customer's consent, payment
// processors send it for the senders who granted them a processor token, redemptions settle per
// plan (engine/designs/redemption.ts), settlers pay what is pending (settlement.ts), and the
// received-and-receivable report reads the rows every payment and settlement keeps.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { posDeviceOf, redeemArrivedIn, type PosDevice } from '../designs/redemption.ts';
import { selectLoopLooks } from '../designs/store.ts';
import { mediaUrlOf } from '../designs/images.ts';
import { openLoopId, parseAmounts, parseSerialNumbers, specificity, sumPicks, type AmountEntry, type Pick } from '../ledger/allocation.ts';
import { balanceLockKey, balanceRowLocks, movementLines, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { duplicate, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import * as ledgerStore from '../ledger/store.ts';
import { appdataCharsMax, dedupWindowMs, pullConsentsListMax } from '../limits.ts';
import { formatMinor, parsePositiveAmount } from '../money.ts';
import { wallet } from '../profiles/machine.ts';
import type { ProfileRecord, ProfilesService } from '../profiles/service.ts';
import type { TransferQueries } from '../transfers/queries.ts';
import { accepts, appdataChars, closedLoopRefusal, redeemedLoopsOf } from '../transfers/service.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import * as transferStore from '../transfers/store.ts';
import { parseUid } from '../uids.ts';
import { invalid, posFailure, type PosFailure } from './errors.ts';
import * as store from './store.ts';

export const pullFeature = 'pull_payment';

export interface PaymentInput {
  amounts?: string;
  serialNumbers?: string;
  nonServiceAmount?: string;
  nonServiceCurrency: string;
  private: boolean;
  message?: string;
  appdata: Record<string, string>;
  dedupId?: string;
}

export interface PullInput extends PaymentInput {
  merchantId: string;
  merchantPersonalId: string | null;
  deviceId: string | null;
  senderUid: string;
}

export interface ProcessorCaller {
  profileId: string;
  source: string;
  permissions: ReadonlySet<string>;
}

export interface ProcInput extends PaymentInput {
  caller: ProcessorCaller;
  senderId: string;
  recipientId: string;
}

export type PaymentResult = { ok: true; transferId: string; duplicate: boolean; transfer: Record<string, unknown> } | Failure | PosFailure;
export type LoopsResult = { ok: true; body: { loops: Record<string, unknown>[]; sender_info: Record<string, unknown>; recipient_info: Record<string, unknown> } } | Failure | PosFailure;

export interface PosService {
  grantConsent(customerId: string, merchantUid: string): Promise<{ ok: true; merchantId: string } | PosFailure>;
  revokeConsent(customerId: string, merchantUid: string): Promise<{ ok: true; revoked: boolean } | PosFailure>;
  consents(customerId: string): Promise<{ merchant_id: string; granted: string }[]>;
  redeemable(input: { merchantId: string; senderUid: string; serialNumbers?: string }): Promise<LoopsResult>;
  pull(input: PullInput): Promise<PaymentResult>;
  sendable(input: { caller: ProcessorCaller; senderId: string; recipientId: string; serialNumbers?: string }): Promise<LoopsResult>;
  procSend(input: ProcInput): Promise<PaymentResult>;
}

interface Parsed {
  entries: AmountEntry[] | null;
  serials: bigint[] | null;
  nonService: { currency: string; minor: bigint } | null;
}

/** The checks of a payment's fields that need no database, in a fixed order. */
function parsePayment(input: PaymentInput): Parsed | Failure | PosFailure {
  let entries: AmountEntry[] | null = null;
  if (input.amounts !== undefined && input.amounts.trim() !== '') {
    const amounts = parseAmounts(input.amounts);
    if (!amounts.ok) return sendFailure(amounts.errors);
    const refused = closedLoopRefusal(amounts.value, true);
    if (refused) return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'amounts', info: { loop_id: openLoopId, reason: 'point of sale payments move brand cash only' } }]);
    entries = amounts.value;
  }
  const serials = parseSerialNumbers(input.serialNumbers);
  if (!serials.ok) return sendFailure(serials.errors);
  let nonService: Parsed['nonService'] = null;
  if (input.nonServiceAmount !== undefined) {
    const parsed = parsePositiveAmount(input.nonServiceAmount, input.nonServiceCurrency);
    if (!parsed.ok) return invalid('non_service_amount', `must be a positive amount of ${input.nonServiceCurrency} (${parsed.error})`);
    nonService = { currency: input.nonServiceCurrency, minor: parsed.value.minor };
  }
  if (!entries && serials.value === null && !nonService) return invalid('amounts', 'give amounts, serial_numbers or non_service_amount');
  if (appdataChars(input.appdata) > appdataCharsMax) return sendFailure([{ code: 'appdata_too_long', field_name: 'appdata', info: { max: appdataCharsMax } }]);
  return { entries, serials: serials.value, nonService };
}

export function createPosService(core: Core, dependencies: { profiles: ProfilesService; queries: TransferQueries }): PosService {
  const { sql, commands } = core;
  const { profiles, queries } = dependencies;

  async function profileByUid(uid: string): Promise<ProfileRecord | null> {
    const parsed = parseUid(uid);
    return parsed ? profiles.findByUid(sql, parsed.uid) : null;
  }

  /** The sender's brand cash, summed per loop, that the recipient accepts (or all, flagged). */
  async function loopsFor(sender: ProfileRecord, recipient: ProfileRecord, serialNumbers: string | undefined, onlyAccepted: boolean): Promise<LoopsResult> {
    const serials = parseSerialNumbers(serialNumbers);
    if (!serials.ok) return sendFailure(serials.errors);
    const redeemed = await redeemedLoopsOf(sql, recipient);
    const notes = serials.value === null
      ? await ledgerStore.selectLoopSummary(sql, sender.id)
      : summarize(await ledgerStore.selectNotes(sql, walletHolder(sender.id), serials.value));
    const brand = notes.filter((row) => row.loop_id !== openLoopId);
    const looks = await selectLoopLooks(sql, brand.map((row) => row.loop_id));
    const loops = brand
      .map((row) => ({ row, accepted: accepts({ loopId: row.loop_id, issuerId: row.issuer_id } as never, recipient, redeemed) }))
      .filter((entry) => entry.accepted || !onlyAccepted)
      .sort((left, right) => specificity({ loopId: left.row.loop_id, issuerId: left.row.issuer_id } as never, recipient.id) - specificity({ loopId: right.row.loop_id, issuerId: right.row.issuer_id } as never, recipient.id))
      .map(({ row, accepted }) => ({
        loop_id: row.loop_id, currency: row.currency, issuer_id: row.issuer_id, title: looks.get(row.loop_id)?.title ?? `Brand cash ${row.loop_id}`,
        thumbnail: looks.get(row.loop_id)?.imageMediaId ? mediaUrlOf(core.config, looks.get(row.loop_id)!.imageMediaId!, 'thumbnail') : null,
        amount: formatMinor(row.amount, row.currency), max_sendable: formatMinor(row.amount, row.currency), missing_agreement: !accepted,
      }));
    return { ok: true, body: { loops, sender_info: { ...queries.partyInfo(sender) }, recipient_info: { ...queries.partyInfo(recipient) } } };
  }

  async function pullChecks(merchantId: string, senderUid: string): Promise<{ merchant: ProfileRecord; customer: ProfileRecord } | PosFailure> {
    const merchant = await profiles.get(sql, merchantId);
    if (!merchant || merchant.isIndividual || !(await profiles.hasFeature(sql, merchantId, pullFeature))) {
      return posFailure('pull_not_enabled', { description: 'Only a business with the pull_payment feature pulls payments.' });
    }
    const customer = await profileByUid(senderUid);
    if (!customer) return posFailure('sender_not_found', { invalid: { sender_uid: 'no profile has this UID' } });
    if (customer.id === merchantId) return invalid('sender_uid', 'the merchant cannot pull from itself');
    // The rule that stops a merchant draining wallets: only customers who let this merchant pull.
    if (!(await store.hasConsent(sql, customer.id, merchantId))) {
      return posFailure('pull_not_consented', { description: 'The customer has not let this merchant pull payments (POST /wallet/pull-consent).' });
    }
    return { merchant, customer };
  }

  async function processorChecks(caller: ProcessorCaller, senderId: string, recipientId: string): Promise<{ sender: ProfileRecord; recipient: ProfileRecord } | PosFailure> {
    if (caller.source !== 'oauth' || !caller.permissions.has('offline') || !caller.permissions.has('process_payment')) {
      return posFailure('processor_token_required', { description: 'A processor token is granted with offline and process_payment through the authorization code grant.' });
    }
    if (!/^\d{10}$/.test(senderId)) return invalid('sender_id', 'must be a profile id');
    if (!/^\d{10}$/.test(recipientId)) return invalid('recipient_id', 'must be a profile id');
    if (senderId !== caller.profileId) return posFailure('processor_not_granted', { description: 'The processor acts only for the sender that granted it this token.' });
    if (senderId === recipientId) return invalid('recipient_id', 'the recipient must differ from the sender');
    const [sender, recipient] = await Promise.all([profiles.get(sql, senderId), profiles.get(sql, recipientId)]);
    if (!sender) return posFailure('sender_not_found', { invalid: { sender_id: 'no such profile' } });
    if (!recipient) return invalid('recipient_id', 'no such profile');
    if (!recipient.isIndividual && (await redeemedLoopsOf(sql, recipient)).size === 0 && !(await ownsDesigns(recipient.id))) {
      return posFailure('recipient_not_accepting', { description: 'The recipient business accepts no brand cash.' });
    }
    return { sender, recipient };
  }

  async function ownsDesigns(profileId: string): Promise<boolean> {
    const rows = await sql`select 1 from designs where issuer_id = ${profileId} and deleted_at is null limit 1`;
    return rows.length > 0;
  }

  /** Builds amounts entries from whole serial numbers when the call names serials only. */
  async function entriesFromSerials(senderId: string, serials: bigint[]): Promise<AmountEntry[] | Failure> {
    const notes = await ledgerStore.selectNotes(sql, walletHolder(senderId), serials);
    if (notes.length !== serials.length) {
      const held = new Set(notes.map((note) => note.serial));
      return sendFailure([{ code: 'serial_not_held', field_name: 'serial_numbers', info: { serial_numbers: serials.filter((serial) => !held.has(serial)).map(String) } }]);
    }
    const currencies = new Set(notes.map((note) => note.currency));
    if (currencies.size > 1) return sendFailure([{ code: 'mixed_currency', field_name: 'serial_numbers', info: { currencies: [...currencies] } }]);
    if (notes.some((note) => note.loopId === openLoopId)) return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'serial_numbers', info: { loop_id: openLoopId } }]);
    const byLoop = new Map<string, AmountEntry>();
    for (const note of notes) {
      const entry = byLoop.get(note.loopId) ?? { loopId: note.loopId, currency: note.currency, minor: 0n };
      entry.minor += note.amount;
      byLoop.set(note.loopId, entry);
    }
    return [...byLoop.values()];
  }

  /**
   * The one payment path of pull and processor: brand cash moves from the sender's wallet to the
   * recipient (movement `move`), brand cash the recipient redeems is redeemed and settled at once,
   * and the sale's outside part is recorded for the report. Refusals roll back everything.
   */
  async function pay(kind: 'pull' | 'processor', parties: { sender: ProfileRecord; recipient: ProfileRecord; dedupOwner: string; personalId: string | null; posDevice: PosDevice | null; viewerId: string }, input: PaymentInput): Promise<PaymentResult> {
    const parsed = parsePayment(input);
    if ('error' in parsed) return parsed;
    const { sender, recipient } = parties;
    let entries = parsed.entries;
    if (!entries && parsed.serials) {
      const fromSerials = await entriesFromSerials(sender.id, parsed.serials);
      if (!Array.isArray(fromSerials)) return fromSerials;
      entries = fromSerials;
    }
    const dedupKey = input.dedupId === undefined ? undefined : `${kind}:${input.dedupId}`;
    if (dedupKey !== undefined) {
      const existing = await transferStore.selectDedupRow(sql, parties.dedupOwner, dedupKey);
      if (existing && existing.created_at.getTime() >= core.clock.now().getTime() - dedupWindowMs) return answer(existing.transfer_id, true, parties.viewerId);
    }
    const redeemed = await redeemedLoopsOf(sql, recipient);
    const currency = entries?.[0].currency ?? parsed.nonService!.currency;
    const balanceKeys = [sender.id, recipient.id].map((id) => balanceLockKey(id, currency));
    const result = await commands.run(`pos.${kind}`, [{ kind: 'wallet', id: sender.id }], async (unit: Unit<Failure | Duplicate>) => {
      const transferId = await unit.newLongId('transfer');
      if (dedupKey !== undefined) {
        const claimed = await transferStore.claimDedup(unit.tx, parties.dedupOwner, dedupKey, transferId, unit.now, new Date(unit.now.getTime() - dedupWindowMs));
        if (!claimed) return unit.reject(duplicate());
      }
      const senderWallet = await unit.load(wallet, sender.id);
      if (!senderWallet || senderWallet.value !== 'active') {
        return unit.reject(sendFailure([{ code: 'sender_wallet_not_active', field_name: 'sender_uid', info: { state: senderWallet?.value ?? null } }]));
      }
      let picks: Pick[] = [];
      if (entries) {
        const picked = await pickFromWallet(unit.tx, sender.id, entries, parsed.serials, {
          recipientId: recipient.id, accepts: (note) => accepts(note, recipient, redeemed), nonPayment: false, recipientIsIndividual: recipient.isIndividual, brandCashOnly: true,
        });
        if (!picked.ok) return unit.reject(sendFailure(picked.errors));
        picks = picked.value;
      }
      await writePayment(unit, { kind, transferId, sender, recipient, picks, currency, parsed, input, parties, redeemed });
      return { ok: true as const, transferId };
    }, { shared: { rows: balanceRowLocks, keys: balanceKeys } });
    if (!result.ok && result.error === 'duplicate') {
      const again = await transferStore.selectDedup(sql, parties.dedupOwner, dedupKey!);
      if (!again) throw new Error('dedup key vanished');
      return answer(again, true, parties.viewerId);
    }
    if (!result.ok) return result;
    return answer(result.transferId, false, parties.viewerId);
  }

  async function writePayment(unit: Unit, payment: {
    kind: 'pull' | 'processor'; transferId: string; sender: ProfileRecord; recipient: ProfileRecord; picks: Pick[]; currency: string; parsed: Parsed; input: PaymentInput;
    parties: { personalId: string | null; posDevice: PosDevice | null }; redeemed: ReadonlySet<string>;
  }): Promise<void> {
    const { transferId, sender, recipient, picks, currency, parsed, input } = payment;
    const at = unit.now;
    const amount = sumPicks(picks);
    const workflowType = payment.kind === 'pull' ? 'pull_redeem' : 'proc_send';
    const snapshot = unit.create(transfer, transferId, { workflowType, waitFor: 'none', at: at.toISOString() });
    const details: Record<string, unknown> = {};
    if (parsed.nonService) Object.assign(details, { non_service_amount: formatMinor(parsed.nonService.minor, parsed.nonService.currency), non_service_currency: parsed.nonService.currency });
    if (payment.parties.posDevice) details.pos_device = `${payment.parties.posDevice.holderId}.${payment.parties.posDevice.deviceId}`;
    await transferStore.insertTransfer(unit.tx, {
      id: transferId, workflowType, senderId: sender.id, senderUid: `service:${sender.id}`, recipientId: recipient.id, recipientUid: `service:${recipient.id}`,
      senderPersonalId: sender.isIndividual ? sender.id : null, recipientPersonalId: recipient.isIndividual ? recipient.id : payment.parties.personalId,
      currency, amount, at, state: stateFields(snapshot.value as TransferStateName), endAt: at, activityCount: snapshot.context.activityCount,
      private: input.private, message: input.message ?? null, messageSubject: null, appdata: input.appdata, details,
    }, [{ profileId: sender.id, role: 'sender' }, { profileId: recipient.id, role: 'recipient' }]);
    const receivables: store.NewReceivable[] = [];
    const device = { posDeviceHolderId: payment.parties.posDevice?.holderId ?? null, posDeviceId: payment.parties.posDevice?.deviceId ?? null };
    if (picks.length > 0) {
      const lines = movementLines(picks, 1, 'move', sender.id, recipient.id);
      await ledgerStore.moveNotes(unit.tx, walletHolder(sender.id), walletHolder(recipient.id), picks, at, { transferId, lines });
      const redeemedLoops = [...new Set(picks.filter((pick) => payment.redeemed.has(pick.loopId) && pick.issuerId !== recipient.id).map((pick) => pick.loopId))];
      if (redeemedLoops.length > 0) await redeemArrivedIn(unit, { transferId, redeemerId: recipient.id, designIds: redeemedLoops, number: 2, posDevice: payment.parties.posDevice });
      // The merchant's own brand cash comes home: it stays in circulation and settles nothing.
      const own = new Map<string, bigint>();
      for (const pick of picks) if (pick.issuerId === recipient.id && !recipient.isIndividual) own.set(pick.loopId, (own.get(pick.loopId) ?? 0n) + pick.amount);
      for (const [loopId, received] of own) {
        receivables.push({
          profileId: recipient.id, transferId, ...device, distTid: null, settlementType: 'redeem', receivedCurrency: currency, settleCurrency: currency, loopId,
          isFundable: false, tenderType: 'service', receivedAmount: received, settleFunded: 0n, settleReclaimed: 0n, settlePending: 0n, settleSettled: 0n,
        });
      }
    }
    if (parsed.nonService && !recipient.isIndividual) {
      receivables.push({
        profileId: recipient.id, transferId, ...device, distTid: null, settlementType: 'non_service', receivedCurrency: parsed.nonService.currency,
        settleCurrency: parsed.nonService.currency, loopId: openLoopId, isFundable: false, tenderType: 'non_service', receivedAmount: parsed.nonService.minor,
        settleFunded: 0n, settleReclaimed: 0n, settlePending: 0n, settleSettled: 0n,
      });
    }
    await store.insertReceivables(unit.tx, receivables, at);
  }

  async function answer(transferId: string, duplicate: boolean, viewerId: string): Promise<PaymentResult> {
    const detail = await queries.detail(viewerId, transferId);
    if (!detail.ok) return detail;
    return { ok: true, transferId, duplicate, transfer: detail.transfer };
  }

  return {
    async grantConsent(customerId, merchantUid) {
      const merchant = await profileByUid(merchantUid);
      if (!merchant || merchant.isIndividual) return invalid('merchant_uid', 'must name a business');
      if (merchant.id === customerId) return invalid('merchant_uid', 'must name another profile');
      await store.upsertConsent(sql, customerId, merchant.id, core.clock.now());
      return { ok: true, merchantId: merchant.id };
    },

    async revokeConsent(customerId, merchantUid) {
      const merchant = await profileByUid(merchantUid);
      if (!merchant) return invalid('merchant_uid', 'no profile has this UID');
      return { ok: true, revoked: await store.revokeConsent(sql, customerId, merchant.id, core.clock.now()) };
    },

    async consents(customerId) {
      const rows = await store.selectConsents(sql, customerId, pullConsentsListMax);
      return rows.map((row) => ({ merchant_id: row.merchant_id, granted: row.granted_at.toISOString() }));
    },

    async redeemable(input) {
      const checked = await pullChecks(input.merchantId, input.senderUid);
      if ('error' in checked) return checked;
      return loopsFor(checked.customer, checked.merchant, input.serialNumbers, true);
    },

    async pull(input) {
      const checked = await pullChecks(input.merchantId, input.senderUid);
      if ('error' in checked) return checked;
      const posDevice = posDeviceOf({ profileId: input.merchantId, personalProfileId: input.merchantPersonalId, deviceId: input.deviceId });
      return pay('pull', {
        sender: checked.customer, recipient: checked.merchant, dedupOwner: input.merchantId, personalId: input.merchantPersonalId, posDevice, viewerId: input.merchantId,
      }, input);
    },

    async sendable(input) {
      const checked = await processorChecks(input.caller, input.senderId, input.recipientId);
      if ('error' in checked) return checked;
      return loopsFor(checked.sender, checked.recipient, input.serialNumbers, false);
    },

    async procSend(input) {
      const checked = await processorChecks(input.caller, input.senderId, input.recipientId);
      if ('error' in checked) return checked;
      return pay('processor', { sender: checked.sender, recipient: checked.recipient, dedupOwner: input.senderId, personalId: null, posDevice: null, viewerId: input.senderId }, input);
    },
  };
}

function summarize(notes: readonly { loopId: string; currency: string; issuerId: string; amount: bigint }[]): ledgerStore.LoopSummaryRow[] {
  const byLoop = new Map<string, ledgerStore.LoopSummaryRow>();
  for (const note of notes) {
    const key = `${note.loopId}\u0000${note.currency}\u0000${note.issuerId}`;
    const row = byLoop.get(key) ?? { loop_id: note.loopId, currency: note.currency, issuer_id: note.issuerId, amount: 0n };
    row.amount += note.amount;
    byLoop.set(key, row);
  }
  return [...byLoop.values()];
}
