// Creating a bill: the merchant (the issuer or an active distributor, with the bill feature) names
// the customer, or the data to create one, and the bill transfer waits for payment under its timers.
import type { Unit } from '../actors/command.ts';
import { openLoopId } from '../ledger/allocation.ts';
import type { Duplicate } from '../ledger/errors.ts';
import { authorityRefusal, passGate } from '../transfers/gate.ts';
import { idempotently, type DedupRequest } from '../transfers/idempotency.ts';
import { billPaymentWaitMs, billReminderIntervalMs } from '../limits.ts';
import { canonicalUidOf, personNameProblem } from '../profiles/names.ts';
import { transfer } from '../transfers/machine.ts';
import { newTransfer } from '../transfers/new-transfer.ts';
import { transferById } from '../transfers/rows.ts';
import { issueTerms, type IssueTerms } from './access.ts';
import { remindIn } from './bill-reminders.ts';
import type { BillInput, BillResult } from './bill-types.ts';
import type { CirculationContext } from './context.ts';
import { distributionSplit } from './distribution.ts';
import { designFailure, invalid, type DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';
import * as store from './store.ts';

export const billFeature = 'bill';

/** The checks before the command, in a fixed order: the design, the merchant's bill feature, the plan and the amount. */
function billTerms(ctx: CirculationContext, input: BillInput): Promise<IssueTerms | DesignFailure> {
  const refusals = { notGl: 'bills are for gl_design brand cash only', forbidden: 'Only the issuer or a profile with an active distributor agreement bills for this brand cash.' };
  return issueTerms(ctx.sql, input, refusals, async () => {
    if (!(await ctx.profiles.hasFeature(ctx.sql, input.callerId, billFeature))) return designFailure('feature_required', { description: `Billing needs the bill feature on merchant ${input.callerId}; the operator adds it with \`cashloop profile feature add ${input.callerId} bill\`.` });
    return null;
  });
}

/** Whether paying the bill makes the merchant pay open loop cash under its plan (the reserve, fees, the issuer's proceeds). */
function billPaysOpenLoop(terms: IssueTerms, merchantId: string): boolean {
  const split = distributionSplit(terms.money, terms.plan.recipients, terms.design.id);
  return split.reserve.minor > 0n || split.fees.length > 0 || (terms.design.issuer_id !== merchantId && split.proceeds.minor > 0n);
}

/** The customer: a profile named by sender_uid or by the email of profile_creation_data, or null to create one. */
async function customerOf(ctx: CirculationContext, input: BillInput, site: string): Promise<{ id: string | null; problem: DesignFailure | null }> {
  if (input.senderUid !== undefined) {
    const uid = canonicalUidOf(input.senderUid);
    const found = uid ? await ctx.profiles.findByUid(ctx.sql, uid) : null;
    if (found) return { id: found.id, problem: found.id === input.callerId ? invalid('sender_uid', 'a merchant cannot bill itself') : null };
  }
  if (!input.profileCreationData) return { id: null, problem: invalid('sender_uid', input.senderUid === undefined ? 'sender_uid or profile_creation_data is required' : 'names no wallet; give profile_creation_data to create one') };
  const data = input.profileCreationData;
  const nameProblem = personNameProblem(data.first_name) ?? personNameProblem(data.last_name);
  if (nameProblem) return { id: null, problem: invalid('profile_creation_data', nameProblem) };
  if (data.email !== undefined) {
    const uid = canonicalUidOf(data.email);
    if (!uid?.startsWith('email:')) return { id: null, problem: invalid('profile_creation_data.email', 'must be an email address') };
    const found = await ctx.profiles.findByUid(ctx.sql, uid);
    if (found && found.site === site) return { id: found.id, problem: null };
    const waiting = await ctx.profiles.claimedProfileId(ctx.sql, site, uid);
    if (waiting) return { id: waiting, problem: null };
  }
  return { id: null, problem: null };
}

/** The bill's command body: the dedup_id claimed, the customer created if new, the waiting bill transfer, its timers and the request email. */
async function billIn(
  ctx: CirculationContext, unit: Unit<Duplicate>, input: BillInput, { design, plan, money }: IssueTerms, customerId: string | null, merchant: { title: string | null; site: string }, dedup: DedupRequest | null,
) {
  const { site } = merchant;
  const merchantTitle = merchant.title;
  const at = unit.now;
  const transferId = await unit.newLongId('transfer');
  // A new customer belongs to the merchant's site, and the email the merchant typed stays a claim:
  // no one proved it, so it confirms nothing and no app takes a /p/token for the profile; the owner
  // who proves it by a code signing up on the site takes the profile over (profiles/claims.ts).
  // The bill's requests go to it as the bill's sender UID.
  let claimedUid: string | null = null;
  if (!customerId) {
    const data = input.profileCreationData!;
    claimedUid = data.email ? canonicalUidOf(data.email) : null;
    customerId = (await ctx.profiles.createIndividualIn(unit, { firstName: data.first_name, lastName: data.last_name, site, confirmedUids: [], claimedUid })).profileId;
  }
  const snapshot = unit.create(transfer, transferId, { workflowType: 'bill', waitFor: 'bill', at: at.toISOString() });
  const agreementId = design.issuer_id === input.callerId ? null : await store.selectActiveAgreementId(unit.tx, design.id, input.callerId, 'distributor');
  const row = newTransfer({ id: transferId, at, money }, {
    workflowType: 'bill', senderId: customerId, senderUid: claimedUid ?? undefined, recipientId: input.callerId, senderPersonalId: customerId,
    private: input.private, message: input.message, appdata: input.appdata,
    details: {
      confirmed: false, reminder_count: 0, design_id: design.id, issuer_id: design.issuer_id, agreement_id: agreementId, distribution_plan_id: plan.id,
      bankcard_number: `${design.id}-${transferId.slice(-6)}`, confirm_timestamp: null, declared_bank: null, declared_amount: null, declared_date: null,
      merchant_title: merchantTitle,
    },
  }, snapshot);
  const passed = await passGate(unit, {
    kind: 'record',
    transferId,
    // A bill moves nothing until it is paid (bill-payment.ts, each leg through the gate).
    // createBill refused a closed-loop token whose bill would pay open loop cash.
    authority: { off: 'checked_before_command' },
    dedup: dedup ?? { off: 'no_dedup_id' },
    cash: [],
    // distributeIn holds the cap when the bill is paid.
    holding: { off: 'nothing_moves' },
    transfer: { row, views: [{ profileId: customerId, role: 'sender' }, { profileId: input.callerId, role: 'recipient' }] },
    move: { off: 'nothing_moves' },
  });
  // Only the dedup rung refuses here (every other is off): a concurrent request holds the key.
  if (!passed.ok) return unit.reject(passed as Duplicate);
  const expiresAt = new Date(at.getTime() + billPaymentWaitMs);
  const remindAt = new Date(at.getTime() + billReminderIntervalMs);
  unit.schedule(transfer, transferId, 'bill_expire', expiresAt, { type: 'transfer.bill_expire', at: expiresAt.toISOString() });
  unit.schedule(transfer, transferId, 'bill_remind', remindAt, { type: 'transfer.bill_remind', at: remindAt.toISOString() });
  const inserted = await transferById(unit.tx, transferId);
  await remindIn(ctx, unit, inserted!, 0);
  return { ok: true as const, transferId, duplicate: false };
}

export async function createBill(ctx: CirculationContext, input: BillInput): Promise<BillResult> {
  const terms = await billTerms(ctx, input);
  if ('error' in terms) return terms;
  const refused = authorityRefusal({ closedLoopOnly: input.closedLoopOnly === true }, billPaysOpenLoop(terms, input.callerId) ? [openLoopId] : [], 'distribution_plan_id');
  if (refused) return refused;
  const merchant = await ctx.profiles.get(ctx.sql, input.callerId);
  if (!merchant) throw new Error(`the billing merchant ${input.callerId} does not exist`);
  const customer = await customerOf(ctx, input, merchant.site);
  // The merchant owns the key; the customer as named, the design, the plan and the amount make the request.
  const dedup: DedupRequest | null = input.dedupId === undefined ? null : {
    ownerId: input.callerId, key: input.dedupId, call: 'bill',
    terms: { designId: terms.design.id, planId: terms.plan.id, amount: terms.money.minor, customerUid: input.senderUid ?? null, newCustomer: input.profileCreationData ?? null },
    senderId: customer.id ?? undefined, recipientId: input.callerId, currency: terms.money.currency, amount: terms.money.minor,
  };
  return idempotently<BillResult>(ctx.sql, dedup, ctx.core.clock.now(), async () => {
    if (customer.problem) return customer.problem;
    const locks = [{ kind: designKind.kind, id: terms.design.id }, { kind: 'wallet', id: input.callerId }];
    return ctx.commands.run('design.bill', locks, (unit: Unit<Duplicate>) => billIn(ctx, unit, input, terms, customer.id, { title: merchant.title ?? null, site: merchant.site }, dedup));
  }, (transferId) => ({ ok: true as const, transferId, duplicate: true }));
}
