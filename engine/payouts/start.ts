// Starting a payout: one command claims the dedup key, checks the sender's wallet, registers an
// ad-hoc account, moves the cash into the transfer's escrow and records the transfer; the bank send
// follows through the outbox (or when the hold ends).
import type { Unit } from '../actors/command.ts';
import type { SnapshotOf } from '../actors/actor.ts';
import { openLoopId, sumPicks, type Pick } from '../ledger/allocation.ts';
import { escrowHolder, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { failure, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import { appdataCharsMax } from '../limits.ts';
import { formatMinor } from '../money.ts';
import { transfer } from '../transfers/machine.ts';
import { newTransfer } from '../transfers/new-transfer.ts';
import { appdataChars } from '../transfers/service.ts';
import { passGate, type TransferRecord } from '../transfers/gate.ts';
import { idempotently, type DedupRequest } from '../transfers/idempotency.ts';
import { redactAccountNumber, type AccountInput } from './accounts.ts';
import type { PayoutsContext } from './context.ts';
import * as store from './store.ts';

export interface PayoutSendInput {
  profileId: string;
  personalProfileId: string | null;
  appdata: Record<string, string>;
  dedupId?: string;
  /** A closed-loop token (POST /p/token): a bank payout moves open loop cash, which it may not. */
  closedLoopOnly?: boolean;
}

export type PayoutResult = { ok: true; transferId: string; duplicate: boolean } | Failure;

export interface PayoutPlan {
  workflowType: 'redeem' | 'fxdeposit';
  currency: string;
  sendAmount: bigint;
  depositAmount: bigint;
  fee: bigint;
  account: store.DfiAccountRow | { new: AccountInput };
  serials: bigint[] | null;
  holdSeconds: number;
  details: Record<string, unknown>;
}

/** What the command body writes once the cash is picked. */
interface Escrowed {
  transferId: string;
  at: Date;
  account: store.DfiAccountRow;
  picks: Pick[];
  feeRecipient: string | null;
  holdingUntil: Date | null;
  snapshot: SnapshotOf<typeof transfer>;
}

/** Creates the payout transfer, escrowing the cash; one command. */
export async function startPayout(ctx: PayoutsContext, input: PayoutSendInput, plan: PayoutPlan): Promise<PayoutResult> {
  const { sql, commands } = ctx.core;
  if (appdataChars(input.appdata) > appdataCharsMax) return sendFailure([{ code: 'appdata_too_long', field_name: 'appdata', info: { max: appdataCharsMax } }]);
  // The sender owns the key; the kind of payout, the account, the currency, the amounts and the serial numbers make the request.
  const dedup: DedupRequest | null = input.dedupId === undefined ? null : {
    ownerId: input.profileId, key: input.dedupId, call: 'payout',
    terms: {
      workflowType: plan.workflowType, currency: plan.currency, sendAmount: plan.sendAmount, fee: plan.fee, serials: plan.serials,
      account: 'new' in plan.account ? plan.account.new : { accountId: plan.account.id },
    },
    senderId: input.profileId, recipientId: 'new' in plan.account ? undefined : plan.account.id, currency: plan.currency, amount: plan.serials ? undefined : plan.sendAmount,
  };
  return idempotently<PayoutResult>(sql, dedup, ctx.core.clock.now(), async () => {
    const feeRecipient = plan.fee > 0n ? await ctx.ledger.issuer(sql) : null;
    if (plan.fee > 0n && !feeRecipient) return failure('no_issuer', 'fees need a designated issuer profile to receive them');
    return commands.run('payout.send', [{ kind: 'wallet', id: input.profileId }], (unit: Unit<Failure | Duplicate>) => escrowPayout(unit, input, plan, feeRecipient, dedup));
  }, (transferId) => ({ ok: true as const, transferId, duplicate: true }));
}

/** The command body: the cash into the transfer's escrow through the gate; every refusal rolls back what came before it. */
async function escrowPayout(unit: Unit<Failure | Duplicate>, input: PayoutSendInput, plan: PayoutPlan, feeRecipient: string | null, dedup: DedupRequest | null) {
  const transferId = await unit.newLongId('transfer');
  const at = unit.now;
  const holdingUntil = plan.holdSeconds > 0 ? new Date(at.getTime() + plan.holdSeconds * 1000) : null;
  let account: store.DfiAccountRow | null = 'new' in plan.account ? null : plan.account;
  const started = () => unit.create(transfer, transferId, {
    workflowType: plan.workflowType, waitFor: holdingUntil ? 'hold' : 'payout', at: at.toISOString(), holdingUntil: holdingUntil?.toISOString() ?? null,
  });
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId,
    balances: { profileIds: [input.profileId], currencies: [plan.currency] },
    authority: { closedLoopOnly: input.closedLoopOnly === true, fieldName: 'amount', loops: [openLoopId] },
    dedup: dedup ?? { off: 'no_dedup_id' },
    cash: async () => {
      if (!account) account = await registerAdHoc(unit, input.profileId, (plan.account as { new: AccountInput }).new);
      const picked = await pickFromWallet(unit.tx, input.profileId, [{ loopId: openLoopId, currency: plan.currency, minor: plan.sendAmount }], plan.serials, {
        recipientId: null, accepts: () => true, nonPayment: false, at: unit.now,
      });
      return picked.ok ? picked.value : sendFailure(picked.errors);
    },
    holding: { off: 'open_loop' },
    transfer: (picks) => payoutTransfer(input, plan, { transferId, at, account: account!, picks: [...picks], feeRecipient, holdingUntil, snapshot: started() }),
    // Into escrow: its movements are recorded when the bank send settles.
    move: { from: walletHolder(input.profileId), to: escrowHolder(transferId), lines: { off: 'escrow_in' } },
  });
  if (!passed.ok) return unit.reject(passed);
  if (holdingUntil) unit.schedule(transfer, transferId, 'hold_end', holdingUntil, { type: 'transfer.hold_end', at: holdingUntil.toISOString() });
  else unit.emit('payout.send', { transferId });
  return { ok: true as const, transferId, duplicate: false };
}

/** An account given in the call itself: stored unregistered, so it is not offered again. */
async function registerAdHoc(unit: Unit, profileId: string, fresh: AccountInput): Promise<store.DfiAccountRow> {
  const accountId = await unit.newShortId('dfi_account');
  const at = unit.now;
  await store.insertAccount(unit.tx, { id: accountId, profileId, registered: false, ...fresh }, at);
  return { id: accountId, profile_id: profileId, registered: false, rdfi_name: fresh.rdfiName, routing_number: fresh.routingNumber, account_number: fresh.accountNumber, ach_type: fresh.achType, currency: fresh.currency, alias: fresh.alias, holder_name: fresh.holderName, created_at: at };
}

/** The waiting payout transfer the gate records, its amount the cash picked. */
function payoutTransfer(input: PayoutSendInput, plan: PayoutPlan, escrowed: Escrowed): TransferRecord {
  const { transferId, at, account, feeRecipient, holdingUntil, snapshot } = escrowed;
  const details: Record<string, unknown> = {
    ...plan.details,
    rdfi_name: account.rdfi_name, account_number_redacted: redactAccountNumber(account.account_number), ach_type: account.ach_type,
    redeem_amount: formatMinor(plan.depositAmount, plan.currency), fee_amount: formatMinor(plan.fee, plan.currency),
    effective_date: at.toISOString().slice(0, 10),
    payout: { account_id: account.id, deposit_minor: String(plan.depositAmount), fee_minor: String(plan.fee), fee_recipient_id: feeRecipient, dest_currency: plan.details.dest_currency ?? plan.currency, dest_amount: plan.details.dest_amount ?? formatMinor(plan.depositAmount, plan.currency) },
  };
  if (holdingUntil) Object.assign(details, { hold_seconds: plan.holdSeconds, holding_until: holdingUntil.toISOString() });
  const views = [{ profileId: input.profileId, role: 'sender' }];
  if (feeRecipient && feeRecipient !== input.profileId) views.push({ profileId: feeRecipient, role: 'fee_recipient' });
  return {
    row: newTransfer({ id: transferId, at, money: sumPicks(escrowed.picks, plan.currency) }, {
      workflowType: plan.workflowType, senderId: input.profileId, recipientId: account.id, senderPersonalId: input.personalProfileId,
      appdata: input.appdata, details,
    }, snapshot),
    views,
  };
}
