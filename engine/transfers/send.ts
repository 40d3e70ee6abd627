// P2P sends (POST /wallet/send): checks that need no lock, then one short shared transaction that
// loads what the send needs, asks the pure plan (plan.ts) and performs it (send-writes.ts).
import type { Unit } from '../actors/command.ts';
import { parseSerialNumbers, type AmountEntry, type ParsedAmounts } from '../ledger/allocation.ts';
import { anchorWalletBalances, balanceLockKey, balanceRowLocks, beginSend, pickFromWallet } from '../ledger/cash.ts';
import { duplicate, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import { appdataCharsMax } from '../limits.ts';
import { wallet } from '../profiles/machine.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import type { ReadyCode } from '../passwords.ts';
import { accepts, redeemedLoopsOf } from './acceptance.ts';
import type { TransfersContext } from './context.ts';
import { claimDedupIn, idempotently, type DedupRequest } from './idempotency.ts';
import { appdataChars, closedLoopRefusal } from './input-checks.ts';
import type { WaitFor } from './machine.ts';
import { planSend, type SendLoaded } from './plan.ts';
import { resolveRecipient, type ResolvedRecipient } from './recipient.ts';
import { writeSend } from './send-writes.ts';
import * as store from './store.ts';
import type { SendInput, SendResult, SendUnit } from './send-types.ts';
export type { SendInput, SendResult } from './send-types.ts';

/** What the send knows before its transaction: checked input, recipient, and what it waits for. */
interface PreparedSend {
  input: SendInput;
  entries: AmountEntry[];
  serials: bigint[] | null;
  currency: string;
  resolved: { recipient: ResolvedRecipient; senderUid: string };
  redeemed: ReadonlySet<string>;
  waitFor: WaitFor;
  /** The code of the invitation the send may create, made before the command (argon2 is slow). */
  invitationCode: ReadyCode | null;
  dedup: DedupRequest | null;
}

export async function send(ctx: TransfersContext, input: SendInput): Promise<SendResult> {
  const { sql } = ctx.core;
  // Checks that need no lock come first, in a fixed order.
  const amounts = input.amounts;
  if (!amounts.ok) return sendFailure(amounts.errors);
  const refused = closedLoopRefusal(amounts.value, input.closedLoopOnly === true);
  if (refused) return refused;
  const serials = parseSerialNumbers(input.serialNumbers);
  if (!serials.ok) return sendFailure(serials.errors);
  if (appdataChars(input.appdata) > appdataCharsMax) {
    return sendFailure([{ code: 'appdata_too_long', field_name: 'appdata', info: { max: appdataCharsMax } }]);
  }
  // A repeat answers before the recipient counts: the key's first request, compared in whole.
  const dedup = dedupRequestOf(input, amounts.value);
  return idempotently(sql, dedup, ctx.core.clock.now(), () => sendOnce(ctx, input, amounts.value, serials.value, dedup), (transferId) => ({ ok: true as const, transferId, duplicate: true }));
}

/** A send that is not a repeat: the recipient, what it waits for, then the command. */
async function sendOnce(ctx: TransfersContext, input: SendInput, entries: AmountEntry[], serials: bigint[] | null, dedup: DedupRequest | null): Promise<SendResult | Duplicate> {
  const { sql, commands } = ctx.core;
  const resolved = await resolveRecipient(ctx, input.senderId, input.recipientUid, input.senderUid);
  if (!resolved.ok) return resolved;
  const recipient = resolved.recipient.profile;
  const redeemed = await redeemedLoopsOf(sql, recipient);
  const waitFor = await waitForOf(ctx, input, recipient);
  const invitationCode = waitFor === 'invite' && ctx.invitations ? await ctx.invitations.makeCode(input.invitationCodeLength) : null;
  const currency = entries[0].currency;
  const prepared: PreparedSend = { input, entries, serials, currency, resolved, redeemed, waitFor, invitationCode, dedup };

  // Sends share transactions: every write is a new row, the sender's notes and dedup key (under
  // the sender's lock) or a relative balance change, so sends of different wallets commit together.
  // The balances they change are taken first for the whole shared transaction, in order.
  const balanceKeys = [input.senderId, ...(recipient && waitFor === 'none' ? [recipient.id] : [])].map((profileId) => balanceLockKey(profileId, currency));
  const result = await commands.run('transfer.send', [{ kind: 'wallet', id: input.senderId }], (unit: SendUnit) => sendIn(ctx, unit, prepared), {
    shared: { rows: balanceRowLocks, keys: balanceKeys, takenByBody: true },
  });
  if (!result.ok && result.error === 'invalid') {
    // The invitations domain refused the address.
    return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { invalid: result.invalid ?? null } }]);
  }
  return result;
}

/** The send's dedup key, owned by the sender: the recipient as named, the amounts (or serial numbers) and whether it is a payment make the request. */
function dedupRequestOf(input: SendInput, entries: readonly AmountEntry[]): DedupRequest | null {
  if (input.dedupId === undefined) return null;
  // Serial numbers name notes, not an amount.
  const amount = input.serialNumbers !== undefined ? undefined : entries.reduce((total, entry) => total + entry.minor, 0n);
  return {
    ownerId: input.senderId, key: input.dedupId, call: 'send',
    terms: { recipientUid: input.recipientUid, amounts: entries.map((entry) => ({ loopId: entry.loopId, currency: entry.currency, minor: entry.minor })), serialNumbers: input.serialNumbers ?? null, nonPayment: input.nonPayment },
    senderId: input.senderId, recipientId: undefined, currency: entries[0].currency, amount,
  };
}

/** What the transfer waits for: an invited recipient, a business's payment code, or nothing. */
async function waitForOf(ctx: TransfersContext, input: SendInput, recipient: ProfileRecord | null): Promise<WaitFor> {
  if (!recipient) return 'invite';
  if (input.requireRecipientEmail && !(await ctx.profiles.confirmedUids(ctx.core.sql, recipient.id)).some((uid) => uid.startsWith('email:'))) return 'invite';
  if (!recipient.isIndividual && recipient.supportPaycode) return 'paycode';
  return 'none';
}

/** The send's command body: load, plan, then the writes through the gate. */
async function sendIn(ctx: TransfersContext, unit: SendUnit, prepared: PreparedSend): Promise<SendResult> {
  const { input, resolved, redeemed } = prepared;
  const recipient = resolved.recipient.profile;
  const loaded = await loadIn(ctx, unit, prepared);
  const planned = planSend(loaded);
  if (!planned.ok) return unit.reject(planned);
  const { plan } = planned;
  const rulesRecipient = { id: recipient?.id ?? null, isIndividual: recipient?.isIndividual ?? true };
  return writeSend(ctx, unit, plan, recipient, {
    withDetail: input.withDetail === true, invitationCode: prepared.invitationCode,
    authority: { closedLoopOnly: input.closedLoopOnly === true },
    holding: { senderId: input.senderId, recipient: rulesRecipient, redeemed },
  });
}

/** Reads what the plan decides on, under the sender's lock; a repeated dedup key rejects here. */
async function loadIn(ctx: TransfersContext, unit: SendUnit, prepared: PreparedSend): Promise<SendLoaded> {
  const { input, entries, currency, resolved, redeemed, waitFor } = prepared;
  const recipient = resolved.recipient.profile;
  // Independent statements go out together (postgres.js pipelines them on the transaction's
  // connection), so a send costs few round trips while it holds the sender's lock.
  const at = unit.now;
  const pick = () => pickFromWallet(unit.tx, input.senderId, entries, prepared.serials, {
    recipientId: recipient?.id ?? null,
    accepts: (note) => accepts(note, recipient, redeemed),
    nonPayment: input.nonPayment,
    recipientIsIndividual: recipient === null || recipient.isIndividual,
    at: unit.now,
    brandCashOnly: input.closedLoopOnly === true,
  });
  // One statement takes the transfer's id number, reads the recipient wallet's state and locks
  // the balances; the sender's wallet is loaded row-locked, so an operator's suspension and a
  // send never cross.
  const lockProfileIds = recipient && waitFor === 'none' ? [input.senderId, recipient.id] : [input.senderId];
  // The open loop rows are made sure of first (anchorWalletBalances), pipelined ahead on the same round trip.
  const begun = () => Promise.all([
    anchorWalletBalances(unit.tx, lockProfileIds, currency), beginSend(unit.tx, { lockProfileIds, currency, recipientId: recipient?.id ?? null }),
  ]).then(([, started]) => started);
  let transferId: string;
  let picked: Awaited<ReturnType<typeof pick>>;
  let senderWallet: Awaited<ReturnType<typeof unit.load<typeof wallet>>>;
  let recipientWalletState: string | null;
  if (prepared.dedup === null) {
    const [started, pickedNow, senderNow] = await Promise.all([begun(), pick(), unit.load(wallet, input.senderId)]);
    transferId = ctx.core.ids.long(started.sequence, 'transfer');
    await claimDedupIn(unit.tx, null, transferId, at);
    [picked, senderWallet, recipientWalletState] = [pickedNow, senderNow, started.recipientWalletState];
  } else {
    const started = await begun();
    transferId = ctx.core.ids.long(started.sequence, 'transfer');
    const [claimed, pickedNow, senderNow] = await Promise.all([
      claimDedupIn(unit.tx, prepared.dedup, transferId, at), pick(), unit.load(wallet, input.senderId),
    ]);
    if (!claimed) return unit.reject(duplicate());
    [picked, senderWallet, recipientWalletState] = [pickedNow, senderNow, started.recipientWalletState];
  }
  return {
    input, recipient: resolved.recipient, senderUid: resolved.senderUid, waitFor, redeemed, currency, transferId, now: at,
    senderWalletState: senderWallet?.value ?? null, recipientWalletState, picked, publicUrl: ctx.core.config.publicUrl, canInvite: Boolean(ctx.invitations),
  };
}
