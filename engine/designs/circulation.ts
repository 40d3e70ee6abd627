// Brand cash in circulation: a design send issues new notes of a gl_design to a recipient under a
// distribution plan, with the sender's open loop payment split as the plan says (docs/brand-cash.md):
//   - discount rows (before redemption): the share of the face value the sender does not pay;
//   - static rows (before redemption): fees paid at once to their recipients;
//   - after-redemption rows (redeemer, static): paid into the design's reserve now, so every unit
//     of fundable brand cash is backed by open loop cash until its redemption settles it;
//   - the rest: proceeds to the design's issuer (skipped when the issuer sends its own cash).
// Each note carries its reserve and plan; splits share the reserve exactly (engine/ledger/store.ts).
// Expiry: the sweeper moves due notes back to the issuer (movement `expire`), out of circulation,
// and releases their reserve to the issuer.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { pickFromWallet, walletHolder, balanceLockKey, balanceRowLocks } from '../ledger/cash.ts';
import { openLoopId, type Pick } from '../ledger/allocation.ts';
import { duplicate, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import * as ledgerStore from '../ledger/store.ts';
import { dayMs, dedupWindowMs, designExpiryBatchMax, escrowedExpiryRetryMs } from '../limits.ts';
import { parsePositiveAmount } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import type { TransfersService } from '../transfers/service.ts';
import * as transferStore from '../transfers/store.ts';
import { designFailure, invalid, type DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';
import { publishDesignIn } from './publish.ts';
import { remindHoldersIn } from './reminders.ts';
import type { MessagesService } from '../messages/service.ts';
import * as posStore from '../pos/store.ts';
import type { PosDevice } from './redemption.ts';
import { percentagePpm, ppmWhole, releaseReserve } from './reserve.ts';
import * as store from './store.ts';
import type { DesignRow, PlanRecipient } from './store.ts';


export interface DesignSendInput {
  callerId: string;
  designId: string;
  recipientUid: string;
  planId: string;
  amount: string;
  senderUid?: string;
  message?: string;
  private: boolean;
  requireRecipientEmail: boolean;
  appdata: Record<string, string>;
  dedupId?: string;
  /** A closed-loop token: the sender's open loop payment under the plan is refused. */
  closedLoopOnly?: boolean;
  /** The calling token's device: the POS device of the report rows the distribution writes. */
  posDevice?: PosDevice | null;
}

export type DesignSendResult = { ok: true; transferId: string; duplicate: boolean } | Failure | DesignFailure;

export interface DistributionSplit {
  /** What the sender pays in all. */
  paid: bigint;
  reserve: bigint;
  fees: { recipientId: string; amount: bigint }[];
  proceeds: bigint;
}

/** How a plan splits the sender's open loop payment for `amount` of brand cash (pure). */
export function distributionSplit(amount: bigint, recipients: readonly PlanRecipient[], designId: string): DistributionSplit {
  const share = (ppm: bigint) => (amount * ppm) / ppmWhole;
  let discountPpm = 0n;
  let reservePpm = 0n;
  const fees: { recipientId: string; amount: bigint }[] = [];
  for (const row of recipients) {
    const ppm = percentagePpm(row.percentage);
    if (row.loop_id === designId) reservePpm += ppm;
    else if (row.recipient_type === 'discount') discountPpm += ppm;
    else if (row.recipient_type === 'static') fees.push({ recipientId: row.recipient_id, amount: share(ppm) });
  }
  const paid = amount - share(discountPpm);
  const reserve = share(reservePpm);
  const proceeds = paid - reserve - fees.reduce((total, fee) => total + fee.amount, 0n);
  if (proceeds < 0n) throw new Error(`plan pays out more than the sender pays (${proceeds})`);
  return { paid, reserve, fees: fees.filter((fee) => fee.amount > 0n), proceeds };
}

/** When a note issued now expires under the design's rule, or null. */
export function noteExpiry(design: DesignRow, now: Date): Date | null {
  if (design.expire_mode === 'absolute') return design.expire_absolute;
  if (design.expire_mode === 'relative' && design.expire_relative_days) return new Date(now.getTime() + design.expire_relative_days * dayMs);
  return null;
}

export interface Circulation {
  send(input: DesignSendInput): Promise<DesignSendResult>;
  /** The designs whose cash the profile accepts as payment: its own designs' cash is accepted anyway. */
  redeemedDesignIds(profileId: string): Promise<Set<string>>;
}

export function createCirculation(core: Core, dependencies: { profiles: ProfilesService; transfers: TransfersService; messages: MessagesService }): Circulation {
  const { sql, commands } = core;
  const { profiles, transfers, messages } = dependencies;

  async function checkedSend(input: DesignSendInput) {
    const design = /^\d{10}$/.test(input.designId) ? await store.selectDesign(sql, input.designId) : null;
    if (!design || design.deleted_at) return designFailure('design_not_found');
    const grants = new Set(await store.selectGrants(sql, design.id, input.callerId));
    if (!grants.has('view_design') && !design.published_at) return designFailure('design_not_found');
    if (design.design_type !== 'gl_design') return invalid('design_id', 'brand cash is sent only under a gl_design');
    if (input.senderUid !== undefined && input.senderUid !== `service:${input.callerId}`) {
      const named = await profiles.findByUid(sql, input.senderUid);
      if (named?.id !== input.callerId) return invalid('sender_uid', 'must name the calling profile');
    }
    const roles = await store.activeAgreementRoles(sql, design.id, input.callerId);
    if (design.issuer_id !== input.callerId && !roles.distributor) {
      return designFailure('design_forbidden', { description: 'Only the issuer or a profile with an active distributor agreement sends this brand cash.' });
    }
    const plan = /^\d{10}$/.test(input.planId) ? await store.selectPlan(sql, design.id, input.planId) : null;
    if (!plan) return invalid('distribution_plan_id', 'is not a live plan of this design');
    const parsed = parsePositiveAmount(input.amount, design.currency);
    if (!parsed.ok) return invalid('amount', `must be a positive amount of ${design.currency} (${parsed.error})`);
    return { design, plan, amount: parsed.value.minor };
  }

  const circulation: Circulation = {
    async send(input) {
      const checked = await checkedSend(input);
      if ('error' in checked) return checked;
      const { design, plan, amount } = checked;
      const [existing, resolved] = await Promise.all([
        input.dedupId === undefined ? null : transferStore.selectDedup(sql, input.callerId, input.dedupId),
        transfers.resolveRecipient(input.callerId, input.recipientUid, undefined),
      ]);
      if (existing) return { ok: true, transferId: existing, duplicate: true };
      if (!resolved.ok) return resolved;
      const recipient = resolved.recipient.profile;
      if (!recipient) return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { reason: 'brand cash is sent to existing profiles only' } }]);
      if (input.requireRecipientEmail && !(await profiles.confirmedUids(sql, recipient.id)).some((uid) => uid.startsWith('email:'))) {
        return invalid('recipient_uid', 'the recipient has no confirmed email address');
      }
      const split = distributionSplit(amount, plan.recipients, design.id);
      const paysOpenLoop = split.reserve > 0n || split.fees.length > 0 || (design.issuer_id !== input.callerId && split.proceeds > 0n);
      if (input.closedLoopOnly && paysOpenLoop) {
        return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'distribution_plan_id', info: { reason: 'this plan makes the sender pay open loop cash, which this token may not move' } }]);
      }
      const balanceKeys = [...new Set([input.callerId, recipient.id, design.issuer_id, ...split.fees.map((fee) => fee.recipientId)])].map((id) => balanceLockKey(id, design.currency));
      const lockRefs = [{ kind: designKind.kind, id: design.id }, { kind: 'wallet', id: input.callerId }];
      const result = await commands.run('design.send', lockRefs, async (unit: Unit<Duplicate | DesignFailure | Failure>) => {
        const at = unit.now;
        const transferId = await unit.newLongId('transfer');
        if (input.dedupId !== undefined) {
          const claimed = await transferStore.claimDedup(unit.tx, input.callerId, input.dedupId, transferId, at, new Date(at.getTime() - dedupWindowMs));
          if (!claimed) return unit.reject(duplicate());
        }
        if (design.max_per_wallet !== null) {
          const held = await ledgerStore.selectBalance(unit.tx, recipient.id, design.id, design.currency);
          if (held + amount > design.max_per_wallet) return unit.reject(invalid('amount', `the recipient would hold more than this design's max_per_wallet`));
        }
        const snapshot = unit.create(transfer, transferId, { workflowType: 'send_design', waitFor: 'none', at: at.toISOString() });
        const views = [{ profileId: input.callerId, role: 'sender' }];
        if (recipient.id !== input.callerId) views.push({ profileId: recipient.id, role: 'recipient' });
        await transferStore.insertTransfer(unit.tx, {
          id: transferId, workflowType: 'send_design', senderId: input.callerId, senderUid: `service:${input.callerId}`, recipientId: recipient.id,
          recipientUid: resolved.recipient.uid, senderPersonalId: null, recipientPersonalId: recipient.isIndividual ? recipient.id : null,
          currency: design.currency, amount, at, state: stateFields(snapshot.value as TransferStateName), endAt: at, activityCount: snapshot.context.activityCount,
          private: input.private, message: input.message ?? null, messageSubject: null, appdata: input.appdata,
          details: { design_id: design.id, distribution_plan_id: plan.id },
        }, views);
        const refused = await distributeIn(unit, { design, plan, senderId: input.callerId, recipientId: recipient.id, amount, transferId, number: 1, posDevice: input.posDevice });
        if (refused) return unit.reject(refused);
        return { ok: true as const, transferId, duplicate: false };
      }, { shared: { rows: balanceRowLocks, keys: balanceKeys } });
      if (!result.ok && result.error === 'duplicate') {
        const again = await transferStore.selectDedup(sql, input.callerId, input.dedupId!);
        if (!again) throw new Error('dedup key vanished');
        return { ok: true, transferId: again, duplicate: true };
      }
      return result;
    },

    async redeemedDesignIds(profileId) {
      return new Set(await store.selectRedeemedDesignIds(sql, profileId));
    },
  };

  core.sweeper.register(designKind.kind, async (unit, timer) => {
    if (timer.name === 'remind') await remindHoldersIn(unit, timer.actorId, { profiles, messages });
    else await expireDueIn(unit, timer.actorId);
  });

  return circulation;
}

/**
 * Inside a command: the sender pays the plan's split of `amount` in open loop cash (movements from
 * `number` + 2 on), new brand cash notes reach the recipient (movements `number` issue and
 * `number` + 1 send_design), the design is published and its expiry scheduled. A sender short of
 * open loop cash gets the failure back (the caller rejects, so nothing stays).
 */
export async function distributeIn(
  unit: Unit,
  input: {
    design: DesignRow; plan: { id: string; recipients: PlanRecipient[] }; senderId: string; recipientId: string; amount: bigint; transferId: string; number: number;
    posDevice?: PosDevice | null;
  },
): Promise<Failure | null> {
  const { design, plan, amount, transferId } = input;
  const at = unit.now;
  const split = distributionSplit(amount, plan.recipients, design.id);
  let number = input.number + 2;
  const payments: [ledgerStore.Holder, bigint, string, string][] = [[{ kind: 'reserve', id: design.id }, split.reserve, 'reserve', design.id]];
  for (const fee of split.fees) payments.push([walletHolder(fee.recipientId), fee.amount, 'fee', fee.recipientId]);
  if (design.issuer_id !== input.senderId) payments.push([walletHolder(design.issuer_id), split.proceeds, 'proceeds', design.issuer_id]);
  const receivables: posStore.NewReceivable[] = [];
  for (const [holder, paid, action, toId] of payments) {
    if (paid === 0n) continue;
    const refused = await payIn(unit, input.senderId, holder, design.currency, paid, { transferId, number, action, toId });
    if (refused) return refused;
    number += 1;
    // Open loop cash paid at distribution (a fee, the issuer's proceeds) is received and settled at once.
    if (holder.kind === 'wallet') {
      receivables.push({
        profileId: toId, transferId, posDeviceHolderId: input.posDevice?.holderId ?? null, posDeviceId: input.posDevice?.deviceId ?? null, distTid: transferId,
        settlementType: 'init_dist', receivedCurrency: design.currency, settleCurrency: design.currency, loopId: design.id, isFundable: false, tenderType: 'service',
        receivedAmount: paid, settleFunded: 0n, settleReclaimed: 0n, settlePending: 0n, settleSettled: paid,
      });
    }
  }
  await posStore.insertReceivables(unit.tx, receivables, at);
  if (design.max_per_wallet !== null && input.recipientId !== design.issuer_id) {
    const held = await ledgerStore.selectBalance(unit.tx, input.recipientId, design.id, design.currency);
    if (held + amount > design.max_per_wallet) {
      return sendFailure([{ code: 'max_per_wallet', field_name: 'amount', info: { loop_id: design.id, reason: 'the recipient would hold more of this brand cash than a wallet may' } }]);
    }
  }
  const expiresAt = noteExpiry(design, at);
  await ledgerStore.insertIssuedNote(unit.tx, {
    holderId: input.recipientId, loopId: design.id, currency: design.currency, issuerId: design.issuer_id, amount, expiresAt, reserve: split.reserve, planId: plan.id,
    distTransferId: transferId,
  }, at);
  const line = { loopId: design.id, currency: design.currency, issuerId: design.issuer_id, amount };
  await ledgerStore.insertMovements(unit.tx, transferId, [
    { number: input.number, action: 'issue', fromId: null, toId: design.issuer_id, ...line },
    { number: input.number + 1, action: 'send_design', fromId: design.issuer_id, toId: input.recipientId, ...line },
  ], at);
  await publishDesignIn(unit, design.id);
  if (expiresAt) unit.schedule(designKind, design.id, `expire:${expiresAt.toISOString()}`, expiresAt, { type: 'design.expire_due', at: expiresAt.toISOString() });
  return null;
}

/** Moves open loop cash from a wallet to a holder, one movement line per issuer of the notes. */
export async function payIn(unit: Unit, fromId: string, to: ledgerStore.Holder, currency: string, amount: bigint, movement: { transferId: string; number: number; action: string; toId: string }): Promise<Failure | null> {
  if (amount === 0n) return null;
  const picked = await pickFromWallet(unit.tx, fromId, [{ loopId: openLoopId, currency, minor: amount }], null, { recipientId: null, accepts: () => true, nonPayment: false });
  if (!picked.ok) return sendFailure(picked.errors);
  const byIssuer = new Map<string, bigint>();
  for (const pick of picked.value) byIssuer.set(pick.issuerId, (byIssuer.get(pick.issuerId) ?? 0n) + pick.amount);
  const lines = [...byIssuer].map(([issuerId, part]) => ({ number: movement.number, action: movement.action, fromId, toId: movement.toId, loopId: openLoopId, currency, issuerId, amount: part }));
  await ledgerStore.moveNotes(unit.tx, walletHolder(fromId), to, picked.value, unit.now, { transferId: movement.transferId, lines });
  return null;
}

/**
 * Expires the design's due notes held in wallets: per holder one `expire` transfer moves them back
 * to the issuer and out of circulation, and their reserve goes to the issuer. Reschedules itself
 * for the next expiry; notes due while in escrow are tried again later.
 */
export async function expireDueIn(unit: Unit, designId: string): Promise<number> {
  const design = await store.selectDesign(unit.tx, designId);
  if (!design) return 0;
  const due = await store.selectDueNotesForUpdate(unit.tx, designId, unit.now, designExpiryBatchMax);
  const byHolder = new Map<string, store.DueNoteRow[]>();
  for (const note of due) byHolder.set(note.holder_id, [...(byHolder.get(note.holder_id) ?? []), note]);
  for (const [holderId, notes] of byHolder) {
    const at = unit.now;
    const amount = notes.reduce((total, note) => total + note.amount, 0n);
    const reserve = notes.reduce((total, note) => total + note.reserve, 0n);
    const transferId = await unit.newLongId('transfer');
    const snapshot = unit.create(transfer, transferId, { workflowType: 'expire', waitFor: 'none', at: at.toISOString() });
    await transferStore.insertTransfer(unit.tx, {
      id: transferId, workflowType: 'expire', senderId: holderId, senderUid: `service:${holderId}`, recipientId: design.issuer_id, recipientUid: `service:${design.issuer_id}`,
      senderPersonalId: null, recipientPersonalId: null, currency: design.currency, amount, at, state: stateFields(snapshot.value as TransferStateName), endAt: at,
      activityCount: snapshot.context.activityCount, private: true, message: null, messageSubject: null, appdata: {}, details: { design_id: designId },
    }, holderId === design.issuer_id ? [{ profileId: holderId, role: 'sender' }] : [{ profileId: holderId, role: 'sender' }, { profileId: design.issuer_id, role: 'recipient' }]);
    const picks: Pick[] = notes.map((note) => ({ serial: note.serial, loopId: designId, currency: note.currency, issuerId: note.issuer_id, amount: note.amount, whole: true }));
    const line = { loopId: designId, currency: design.currency, issuerId: design.issuer_id, amount };
    await ledgerStore.moveNotes(unit.tx, walletHolder(holderId), { kind: 'expired', id: designId }, picks, at, {
      transferId, lines: [{ number: 1, action: 'expire', fromId: holderId, toId: design.issuer_id, ...line }],
    });
    await ledgerStore.addExpired(unit.tx, designId, design.currency, amount);
    if (reserve > 0n) await releaseReserve(unit, designId, design.currency, reserve, design.issuer_id, { transferId, number: 2, action: 'release' });
  }
  const next = await store.selectNextExpiry(unit.tx, designId);
  if (next) {
    const dueAt = next > unit.now ? next : new Date(unit.now.getTime() + escrowedExpiryRetryMs);
    unit.schedule(designKind, designId, `expire:${dueAt.toISOString()}`, dueAt, { type: 'design.expire_due', at: dueAt.toISOString() });
  }
  return due.length;
}

