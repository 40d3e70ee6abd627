// A design send (POST /design/<id>/send): the issuer or an active distributor issues brand cash to
// an existing profile under a plan, paying the plan's split in open loop cash, in one command.
import type { Unit } from '../actors/command.ts';
import { balanceLockKey, balanceRowLocks } from '../ledger/cash.ts';
import { sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import { wallet } from '../profiles/machine.ts';
import { passGate } from '../transfers/gate.ts';
import { idempotently, type DedupRequest } from '../transfers/idempotency.ts';
import { issueTerms, type IssueTerms } from './access.ts';
import type { DesignSendInput, DesignSendResult } from './design-send-types.ts';
import type { CirculationContext } from './context.ts';
import { distributeIn, distributionSplit } from './distribution.ts';
import { invalid, type DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';

type Resolution = Awaited<ReturnType<CirculationContext['transfers']['resolveRecipient']>>;
type Resolved = Extract<Awaited<ReturnType<CirculationContext['transfers']['resolveRecipient']>>, { ok: true }>['recipient'];

/** The recipient: an existing profile, and the UID the send named it by. */
interface SendTo {
  profile: NonNullable<Resolved['profile']>;
  uid: string;
}

/** The checks that need no lock, in a fixed order: the design, the sender, the plan and the amount. */
function checkedSend(ctx: CirculationContext, input: DesignSendInput): Promise<IssueTerms | DesignFailure> {
  const refusals = { notGl: 'brand cash is sent only under a gl_design', forbidden: 'Only the issuer or a profile with an active distributor agreement sends this brand cash.' };
  return issueTerms(ctx.sql, input, refusals, async () => {
    if (input.senderUid !== undefined && input.senderUid !== `service:${input.callerId}`) {
      const named = await ctx.profiles.findByUid(ctx.sql, input.senderUid);
      if (named?.id !== input.callerId) return invalid('sender_uid', 'must name the calling profile');
    }
    return null;
  });
}

/** The send's command body: the send_design transfer through the gate, the distribution (whose issue climbs the holding rungs) after it. */
async function sendIn(ctx: CirculationContext, unit: Unit<Duplicate | DesignFailure | Failure>, input: DesignSendInput, terms: IssueTerms, { profile, uid }: SendTo, dedup: DedupRequest | null) {
  const { design, plan, money } = terms;
  const transferId = await unit.newLongId('transfer');
  const views = [{ profileId: input.callerId, role: 'sender' }];
  if (profile.id !== input.callerId) views.push({ profileId: profile.id, role: 'recipient' });
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId,
    // send() refused a closed-loop token whose plan pays open loop cash now.
    authority: { off: 'checked_before_command' },
    wallets: { read: async () => ({ sender: (await unit.load(wallet, input.callerId))?.value ?? null, recipient: await ctx.profiles.walletState(unit.tx, profile.id) }) },
    dedup: dedup ?? { off: 'no_dedup_id' },
    cash: [],
    // The distribution's issue climbs max_per_wallet before and after.
    holding: { off: 'held_by_issue' },
    transfer: {
      ended: {
        workflowType: 'send_design', senderId: input.callerId, recipientId: profile.id, recipientUid: uid, recipientPersonalId: profile.isIndividual ? profile.id : null,
        money, private: input.private, message: input.message, appdata: input.appdata, details: { design_id: design.id, distribution_plan_id: plan.id },
      },
      views,
    },
    // distributeIn issues the brand cash and pays the plan's split, each hop recorded.
    move: { off: 'moved_by_path' },
    after: () => distributeIn(unit, {
      design, plan, senderId: input.callerId, recipientId: profile.id, money, transferId, number: 1, posDevice: input.posDevice, reserveOwed: input.closedLoopOnly === true,
    }),
  });
  // The gate's cap refusal, answered as a design send always answered it: the amount is too much.
  if (!passed.ok && 'sendErrors' in passed && passed.sendErrors?.some((problem) => problem.code === 'max_per_wallet')) {
    return unit.reject(invalid('amount', `the recipient would hold more than this design's max_per_wallet`));
  }
  if (!passed.ok) return unit.reject(passed);
  return { ok: true as const, transferId, duplicate: false };
}

export async function send(ctx: CirculationContext, input: DesignSendInput): Promise<DesignSendResult> {
  const checked = await checkedSend(ctx, input);
  if ('error' in checked) return checked;
  const { design, plan, money } = checked;
  const resolved = await ctx.transfers.resolveRecipient(input.callerId, input.recipientUid, undefined);
  const dedup: DedupRequest | null = input.dedupId === undefined ? null : {
    ownerId: input.callerId, key: input.dedupId, call: 'design_send', terms: { designId: design.id, planId: plan.id, recipientUid: input.recipientUid, amount: money.minor },
    senderId: input.callerId, recipientId: resolved.ok ? resolved.recipient.profile?.id : undefined, currency: money.currency, amount: money.minor,
  };
  return idempotently<DesignSendResult>(ctx.sql, dedup, ctx.core.clock.now(), () => sendOnce(ctx, input, checked, resolved, dedup), (transferId) => ({ ok: true as const, transferId, duplicate: true }));
}

/** A design send that is not a repeat: the recipient's checks, then the command. */
async function sendOnce(ctx: CirculationContext, input: DesignSendInput, checked: IssueTerms, resolved: Resolution, dedup: DedupRequest | null) {
  const { design, plan, money } = checked;
  if (!resolved.ok) return resolved;
  const recipient = resolved.recipient.profile;
  if (!recipient) return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { reason: 'brand cash is sent to existing profiles only' } }]);
  if (input.requireRecipientEmail && !(await ctx.profiles.confirmedUids(ctx.sql, recipient.id)).some((uid) => uid.startsWith('email:'))) {
    return invalid('recipient_uid', 'the recipient has no confirmed email address');
  }
  // A closed-loop token moves no open loop cash: its send leaves the reserve owed (settled at
  // redemption by a settler), but fees and the issuer's proceeds are paid now, so a plan with any is refused.
  const split = distributionSplit(money, plan.recipients, design.id);
  const paysNow = split.fees.length > 0 || (design.issuer_id !== input.callerId && split.proceeds.minor > 0n);
  if (input.closedLoopOnly && paysNow) {
    return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'distribution_plan_id', info: { reason: 'this plan pays fees or proceeds in open loop cash at once, which this token may not move' } }]);
  }
  const balanceKeys = [...new Set([input.callerId, recipient.id, design.issuer_id, ...split.fees.map((fee) => fee.recipientId)])].map((id) => balanceLockKey(id, design.currency));
  const lockRefs = [{ kind: designKind.kind, id: design.id }, { kind: 'wallet', id: input.callerId }];
  return ctx.commands.run('design.send', lockRefs, (unit: Unit<Duplicate | DesignFailure | Failure>) => sendIn(ctx, unit, input, checked, { profile: recipient, uid: resolved.recipient.uid }, dedup), { shared: { rows: balanceRowLocks, keys: balanceKeys } });
}
