// Bills: a merchant (the recipient, who initiates) bills a customer (the sender) for brand cash of a
// gl_design. The bill transfer waits for payment; when paid, the customer holds the brand cash
// (issued under the bill's plan, the merchant paying the plan's split as in a design send).
// Payment arrives two ways (docs/brand-cash.md): the customer pays from their open loop cash with
// POST /t/<id>/accept, or the operator records a payment received outside. The customer may
// confirm that payment was sent (reminders stop); either side may cancel; after 14 days the
// bill cancels itself through a durable timer. Reminders go out daily until confirmed.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { balanceLockKey, balanceRowLocks, walletHolder } from '../ledger/cash.ts';
import { duplicate, failure, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import { billPaymentWaitMs, billReminderIntervalMs, dedupWindowMs } from '../limits.ts';
import type { MessagesService } from '../messages/service.ts';
import { billMessage } from '../messages/templates.ts';
import { formatMinor, parsePositiveAmount } from '../money.ts';
import { canonicalUidOf, personNameProblem } from '../profiles/names.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import type { TransfersService } from '../transfers/service.ts';
import * as transferStore from '../transfers/store.ts';
import { distributeIn, payIn } from './circulation.ts';
import { designFailure, invalid, type DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';
import * as store from './store.ts';

export const billFeature = 'bill';

export interface BillInput {
  callerId: string;
  designId: string;
  amount: string;
  planId: string;
  senderUid?: string;
  profileCreationData?: { first_name: string; last_name: string; email?: string };
  message?: string;
  private: boolean;
  appdata: Record<string, string>;
  dedupId?: string;
}

export type BillResult = { ok: true; transferId: string; duplicate: boolean } | Failure | DesignFailure;

export interface BillsService {
  create(input: BillInput): Promise<BillResult>;
  /** The customer says payment was sent another way: reminders stop; the bill stays cancelable. */
  confirm(input: { callerId: string; transferId: string; declaredBank?: string; declaredAmount?: string; declaredDate?: string }): Promise<{ ok: true; transferId: string } | Failure>;
  /** The operator records a payment received outside Cashloop: the customer gets the brand cash. */
  recordOutsidePayment(transferId: string): Promise<{ ok: true; transferId: string } | Failure>;
}

export function createBillsService(core: Core, dependencies: { profiles: ProfilesService; transfers: TransfersService; messages: MessagesService }): BillsService {
  const { sql, commands } = core;
  const { profiles, transfers, messages } = dependencies;

  async function remindIn(unit: Unit, row: transferStore.TransferRow, reminder: number): Promise<void> {
    const [merchant, design, uids] = await Promise.all([
      profiles.get(unit.tx, row.recipient_id!), store.selectDesign(unit.tx, String(row.details.design_id)), profiles.confirmedUids(unit.tx, row.sender_id!),
    ]);
    const email = uids.find((uid) => uid.startsWith('email:'));
    if (!email || !design) return;
    const content = billMessage({ merchantTitle: merchant?.title ?? 'A merchant', designTitle: design.title, amount: formatMinor(row.amount, row.currency), currency: row.currency, transferId: row.id, reminder });
    messages.queue(unit, { channel: 'email', to: email.slice('email:'.length), template: 'transfer-billpay-request', ...content });
  }

  /** Completes a waiting bill: the customer's payment (if any) reaches the merchant, then the brand cash is issued to the customer. */
  async function payIn_(unit: Unit<Failure>, row: transferStore.TransferRow, paidBy: 'wallet' | 'outside'): Promise<void> {
    const snapshot = await unit.load(transfer, row.id);
    if (!snapshot || snapshot.value !== 'bill') return unit.reject(failure('not_waiting'));
    const design = await store.selectDesign(unit.tx, String(row.details.design_id));
    const plan = await store.selectPlanAnyState(unit.tx, String(row.details.distribution_plan_id));
    if (!design || !plan) throw new Error(`bill ${row.id} lost its design or plan`);
    let number = 1;
    if (paidBy === 'wallet') {
      const refused = await payIn(unit, row.sender_id!, walletHolder(row.recipient_id!), row.currency, row.amount, { transferId: row.id, number, action: 'pay', toId: row.recipient_id! });
      if (refused) return unit.reject(refused);
      number += 1;
    }
    const refused = await distributeIn(unit, { design, plan, senderId: row.recipient_id!, recipientId: row.sender_id!, amount: row.amount, transferId: row.id, number });
    if (refused) return unit.reject(refused);
    unit.cancelTimer(transfer, row.id, 'bill_expire');
    unit.cancelTimer(transfer, row.id, 'bill_remind');
    await transfers.applyIn(unit, row.id, { type: 'transfer.bill_pay', at: unit.now.toISOString() }, { details: { paid_by: paidBy } });
  }

  function locksOf(row: transferStore.TransferRow) {
    return [{ kind: 'wallet', id: row.sender_id! }, { kind: 'wallet', id: row.recipient_id! }, { kind: 'transfer', id: row.id }];
  }

  function sharedOf(row: transferStore.TransferRow, issuerId: string) {
    return { shared: { rows: balanceRowLocks, keys: [...new Set([row.sender_id!, row.recipient_id!, issuerId])].map((id) => balanceLockKey(id, row.currency)) } };
  }

  transfers.onAccept('bill', async (callerId, row, closedLoopOnly) => {
    if (row.sender_id !== callerId) return failure('not_recipient', 'only the billed customer pays a bill');
    // Paying a bill spends open loop cash, which a closed-loop token may not move.
    if (closedLoopOnly) return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'transfer_id', info: { reason: 'this token may move brand cash only' } }]);
    const design = await store.selectDesign(sql, String(row.details.design_id));
    return commands.run('bill.pay', locksOf(row), async (unit: Unit<Failure>) => {
      await payIn_(unit, row, 'wallet');
      return { ok: true as const, transferId: row.id };
    }, sharedOf(row, design?.issuer_id ?? row.recipient_id!));
  });

  transfers.onTimer('bill_expire', async (unit, transferId, event) => {
    const snapshot = await unit.load(transfer, transferId);
    if (!snapshot || snapshot.value !== 'bill') return;
    await transfers.applyIn(unit, transferId, event);
    unit.cancelTimer(transfer, transferId, 'bill_remind');
  });

  transfers.onTimer('bill_remind', async (unit, transferId) => {
    const snapshot = await unit.load(transfer, transferId);
    const row = await transferStore.selectTransfer(unit.tx, transferId);
    if (!snapshot || !row || snapshot.value !== 'bill' || snapshot.context.billConfirmedAt) return;
    const next = await transfers.applyIn(unit, transferId, { type: 'transfer.bill_remind', at: unit.now.toISOString() }, { details: { reminder_count: (snapshot.context.reminderCount ?? 0) + 1 } });
    if (!next) return;
    await remindIn(unit, row, (snapshot.context.reminderCount ?? 0) + 1);
    const dueAt = new Date(unit.now.getTime() + billReminderIntervalMs);
    unit.schedule(transfer, transferId, 'bill_remind', dueAt, { type: 'transfer.bill_remind', at: dueAt.toISOString() });
  });

  async function customerOf(input: BillInput): Promise<{ id: string | null; problem: DesignFailure | null }> {
    if (input.senderUid !== undefined) {
      const uid = canonicalUidOf(input.senderUid);
      const found = uid ? await profiles.findByUid(sql, uid) : null;
      if (found) return { id: found.id, problem: found.id === input.callerId ? invalid('sender_uid', 'a merchant cannot bill itself') : null };
    }
    if (!input.profileCreationData) return { id: null, problem: invalid('sender_uid', input.senderUid === undefined ? 'sender_uid or profile_creation_data is required' : 'names no wallet; give profile_creation_data to create one') };
    const data = input.profileCreationData;
    const nameProblem = personNameProblem(data.first_name) ?? personNameProblem(data.last_name);
    if (nameProblem) return { id: null, problem: invalid('profile_creation_data', nameProblem) };
    if (data.email !== undefined) {
      const uid = canonicalUidOf(data.email);
      if (!uid?.startsWith('email:')) return { id: null, problem: invalid('profile_creation_data.email', 'must be an email address') };
      const found = await profiles.findByUid(sql, uid);
      if (found) return { id: found.id, problem: null };
    }
    return { id: null, problem: null };
  }

  return {
    async create(input) {
      const design = /^\d{10}$/.test(input.designId) ? await store.selectDesign(sql, input.designId) : null;
      if (!design || design.deleted_at) return designFailure('design_not_found');
      const grants = new Set(await store.selectGrants(sql, design.id, input.callerId));
      if (!grants.has('view_design') && !design.published_at) return designFailure('design_not_found');
      if (design.design_type !== 'gl_design') return invalid('design_id', 'bills are for gl_design brand cash only');
      if (!(await profiles.hasFeature(sql, input.callerId, billFeature))) return designFailure('feature_required', { description: 'Billing needs the bill feature on the merchant.' });
      const roles = await store.activeAgreementRoles(sql, design.id, input.callerId);
      if (design.issuer_id !== input.callerId && !roles.distributor) {
        return designFailure('design_forbidden', { description: 'Only the issuer or a profile with an active distributor agreement bills for this brand cash.' });
      }
      const plan = /^\d{10}$/.test(input.planId) ? await store.selectPlan(sql, design.id, input.planId) : null;
      if (!plan) return invalid('distribution_plan_id', 'is not a live plan of this design');
      const parsed = parsePositiveAmount(input.amount, design.currency);
      if (!parsed.ok) return invalid('amount', `must be a positive amount of ${design.currency} (${parsed.error})`);
      const amount = parsed.value.minor;
      if (input.dedupId !== undefined) {
        const existing = await transferStore.selectDedup(sql, input.callerId, input.dedupId);
        if (existing) return { ok: true, transferId: existing, duplicate: true };
      }
      const customer = await customerOf(input);
      if (customer.problem) return customer.problem;
      const merchant = await profiles.get(sql, input.callerId);
      const result = await commands.run('design.bill', [{ kind: designKind.kind, id: design.id }, { kind: 'wallet', id: input.callerId }], async (unit: Unit<Duplicate>) => {
        const at = unit.now;
        const transferId = await unit.newLongId('transfer');
        if (input.dedupId !== undefined) {
          const claimed = await transferStore.claimDedup(unit.tx, input.callerId, input.dedupId, transferId, at, new Date(at.getTime() - dedupWindowMs));
          if (!claimed) return unit.reject(duplicate());
        }
        let customerId = customer.id;
        if (!customerId) {
          const data = input.profileCreationData!;
          const email = data.email ? canonicalUidOf(data.email) : null;
          customerId = (await profiles.createIndividualIn(unit, { firstName: data.first_name, lastName: data.last_name, site: 'default', confirmedUids: email ? [email] : [] })).profileId;
        }
        const snapshot = unit.create(transfer, transferId, { workflowType: 'bill', waitFor: 'bill', at: at.toISOString() });
        const agreementId = design.issuer_id === input.callerId ? null : await store.selectActiveAgreementId(unit.tx, design.id, input.callerId, 'distributor');
        const row: transferStore.NewTransfer = {
          id: transferId, workflowType: 'bill', senderId: customerId, senderUid: `service:${customerId}`, recipientId: input.callerId, recipientUid: `service:${input.callerId}`,
          senderPersonalId: customerId, recipientPersonalId: null, currency: design.currency, amount, at, state: stateFields(snapshot.value as TransferStateName), endAt: null,
          activityCount: snapshot.context.activityCount, private: input.private, message: input.message ?? null, messageSubject: null, appdata: input.appdata,
          details: {
            confirmed: false, reminder_count: 0, design_id: design.id, issuer_id: design.issuer_id, agreement_id: agreementId, distribution_plan_id: plan.id,
            bankcard_number: `${design.id}-${transferId.slice(-6)}`, confirm_timestamp: null, declared_bank: null, declared_amount: null, declared_date: null,
            merchant_title: merchant?.title ?? null,
          },
        };
        await transferStore.insertTransfer(unit.tx, row, [{ profileId: customerId, role: 'sender' }, { profileId: input.callerId, role: 'recipient' }]);
        const expiresAt = new Date(at.getTime() + billPaymentWaitMs);
        const remindAt = new Date(at.getTime() + billReminderIntervalMs);
        unit.schedule(transfer, transferId, 'bill_expire', expiresAt, { type: 'transfer.bill_expire', at: expiresAt.toISOString() });
        unit.schedule(transfer, transferId, 'bill_remind', remindAt, { type: 'transfer.bill_remind', at: remindAt.toISOString() });
        const inserted = await transferStore.selectTransfer(unit.tx, transferId);
        await remindIn(unit, inserted!, 0);
        return { ok: true as const, transferId, duplicate: false };
      });
      if (!result.ok) {
        const again = await transferStore.selectDedup(sql, input.callerId, input.dedupId!);
        if (!again) throw new Error('dedup key vanished');
        return { ok: true, transferId: again, duplicate: true };
      }
      return result;
    },

    async confirm(input) {
      const row = await transferStore.selectTransfer(sql, input.transferId);
      if (!row || row.workflow_type !== 'bill' || !(await transferStore.isViewer(sql, row.id, input.callerId))) return failure('transfer_not_found');
      if (row.sender_id !== input.callerId) return failure('not_recipient', 'only the billed customer confirms payment');
      return commands.run('bill.confirm', [{ kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
        const snapshot = await unit.load(transfer, row.id);
        if (!snapshot || snapshot.value !== 'bill') return unit.reject(failure('not_waiting'));
        await transfers.applyIn(unit, row.id, { type: 'transfer.bill_confirm', at: unit.now.toISOString() }, {
          details: {
            confirmed: true, confirm_timestamp: snapshot.context.billConfirmedAt ?? unit.now.toISOString(),
            declared_bank: input.declaredBank ?? null, declared_amount: input.declaredAmount ?? null, declared_date: input.declaredDate ?? null,
          },
        });
        unit.cancelTimer(transfer, row.id, 'bill_remind');
        return { ok: true as const, transferId: row.id };
      });
    },

    async recordOutsidePayment(transferId) {
      const row = await transferStore.selectTransfer(sql, transferId);
      if (!row || row.workflow_type !== 'bill') return failure('transfer_not_found');
      const design = await store.selectDesign(sql, String(row.details.design_id));
      return commands.run('bill.paid_outside', locksOf(row), async (unit: Unit<Failure>) => {
        await payIn_(unit, row, 'outside');
        return { ok: true as const, transferId: row.id };
      }, sharedOf(row, design?.issuer_id ?? row.recipient_id!));
    },
  };
}
