// Trades (POST /wallet/trade, POST /t/<id>/accept-trade; supplement 4.10): the sender offers cash
// and names what it expects back. The offered cash waits in the trade's escrow; when the recipient
// accepts, its expected cash moves to the sender and the escrow to the recipient, in one command.
// Retraction (sender) or the accept deadline (a durable timer) returns the escrow.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { mixedCurrencies, sumPicks, type AmountEntry, type Pick } from '../ledger/allocation.ts';
import { balanceLockKey, escrowHolder, lockBalances, movementLines, pickFromWallet, walletHolder } from '../ledger/cash.ts';
import { failure, sendFailure, type Duplicate, type Failure } from '../ledger/errors.ts';
import { appdataCharsMax } from '../limits.ts';
import { formatDecimal, formatMinor, positiveMoneyOf, wellFormedDecimal, type Decimal } from '../money.ts';
import type { ProfileRecord, ProfilesService } from '../profiles/service.ts';
import { transfer } from './machine.ts';
import { newTransfer } from './new-transfer.ts';
import { accepts, redeemedLoopsOf } from './acceptance.ts';
import { redeemArrivedIn } from '../designs/redemption.ts';
import { appdataChars, closedLoopRefusal } from './input-checks.ts';
import type { TransfersService } from './service.ts';
import { unexpiredEscrowPicks } from '../designs/expiry.ts';
import { parseUid } from '../uids.ts';
import { passGate } from './gate.ts';
import { idempotently, type DedupRequest } from './idempotency.ts';
import * as store from './store.ts';

/** A trade entry as the edge read it. */
interface TradeEntryInput {
  loop_id: string;
  currency: string;
  amount: Decimal;
}

/** A trade entry as the transfer's details keep it (and answer it). */
interface TradeEntry {
  loop_id: string;
  currency: string;
  amount: string;
}

interface TradeInput {
  senderId: string;
  senderPersonalId: string | null;
  recipientUid: string;
  amounts: TradeEntryInput[];
  expectAmounts: TradeEntryInput[];
  acceptExpireSeconds: number;
  appdata: Record<string, string>;
  dedupId?: string;
  closedLoopOnly: boolean;
}

interface AcceptTradeInput {
  callerId: string;
  transferId: string;
  settlerUid?: string;
  distributionPlanIds: Record<string, string>;
  closedLoopOnly: boolean;
}

type TradeResult = { ok: true; transferId: string } | Failure;

export interface TradesService {
  start(input: TradeInput): Promise<TradeResult>;
  accept(input: AcceptTradeInput): Promise<TradeResult>;
}

function storedEntry(entry: TradeEntryInput): TradeEntry {
  return { ...entry, amount: formatDecimal(entry.amount) };
}

function readStoredEntry(entry: TradeEntry): TradeEntryInput {
  return { ...entry, amount: wellFormedDecimal(entry.amount) };
}

/** A trade's entries as money, refused in the words the `amounts` parameter's refusals use. */
function entriesMoney(entries: readonly TradeEntryInput[], field: string): { ok: true; value: AmountEntry[] } | Failure {
  const value: AmountEntry[] = [];
  for (const entry of entries) {
    const money = positiveMoneyOf(entry.amount, entry.currency);
    if (!money.ok) {
      return sendFailure([{ code: 'invalid_amounts', field_name: field, info: { entry: `${entry.loop_id}-${entry.currency}-${formatDecimal(entry.amount)}`, reason: money.error } }]);
    }
    value.push({ loopId: entry.loop_id, currency: entry.currency, minor: money.value.minor });
  }
  const mixed = mixedCurrencies(value, field);
  return mixed ? sendFailure([mixed]) : { ok: true, value };
}

/** What trades share, built once by createTradesService. */
interface TradesContext {
  core: Core;
  profiles: ProfilesService;
  transfers: TransfersService;
}

export function createTradesService(core: Core, profiles: ProfilesService, transfers: TransfersService): TradesService {
  const ctx: TradesContext = { core, profiles, transfers };
  return { start: (input) => start(ctx, input), accept: (input) => accept(ctx, input) };
}

async function start(ctx: TradesContext, input: TradeInput): Promise<TradeResult> {
  const { core } = ctx;
  const { sql, commands } = core;
  const offered = entriesMoney(input.amounts, 'amounts');
  if (!offered.ok) return offered;
  const expected = entriesMoney(input.expectAmounts, 'expect_amounts');
  if (!expected.ok) return expected;
  const refused = closedLoopRefusal(offered.value, input.closedLoopOnly);
  if (refused) return refused;
  if (appdataChars(input.appdata) > appdataCharsMax) return sendFailure([{ code: 'appdata_too_long', field_name: 'appdata', info: { max: appdataCharsMax } }]);
  const resolved = await ctx.transfers.resolveRecipient(input.senderId, input.recipientUid, undefined);
  // The sender owns the key; the recipient as named, the cash offered and the cash asked for make the request.
  const dedup: DedupRequest | null = input.dedupId === undefined ? null : {
    ownerId: input.senderId, key: input.dedupId, call: 'trade',
    terms: { recipientUid: input.recipientUid, offered: offered.value.map(entryTerms), expected: expected.value.map(entryTerms) },
    senderId: input.senderId, recipientId: resolved.ok ? resolved.recipient.profile?.id : undefined,
    currency: offered.value[0].currency, amount: offered.value.reduce((total, entry) => total + entry.minor, 0n),
  };
  return idempotently<TradeResult>(sql, dedup, core.clock.now(), async () => {
    if (!resolved.ok) return resolved;
    const recipient = resolved.recipient.profile;
    if (!recipient) return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { reason: 'a trade needs a recipient with a wallet' } }]);
    const offer: Offer = { input, offered: offered.value, recipient, senderUid: resolved.senderUid, recipientUid: resolved.recipient.uid };
    return commands.run('transfer.trade', [{ kind: 'wallet', id: input.senderId }], (unit: Unit<Failure | Duplicate>) => startIn(unit, offer, dedup));
  }, (transferId) => ({ ok: true, transferId }));
}

const entryTerms = (entry: AmountEntry) => ({ loopId: entry.loopId, currency: entry.currency, minor: entry.minor });

/** A trade checked outside its command: the offered entries and the resolved recipient. */
interface Offer {
  input: TradeInput;
  offered: AmountEntry[];
  recipient: ProfileRecord;
  senderUid: string;
  recipientUid: string;
}

/** Moves the offered cash into the trade's escrow through the gate and writes the waiting trade with its deadline. */
async function startIn(unit: Unit<Failure | Duplicate>, offer: Offer, dedup: DedupRequest | null): Promise<TradeResult> {
  const { input, recipient } = offer;
  const transferId = await unit.newLongId('transfer');
  const at = unit.now;
  const expiresAt = new Date(at.getTime() + input.acceptExpireSeconds * 1000);
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId,
    balances: { profileIds: [input.senderId], currencies: [...new Set(offer.offered.map((entry) => entry.currency))] },
    authority: { closedLoopOnly: input.closedLoopOnly === true, fieldName: 'amounts' },
    dedup: dedup ?? { off: 'no_dedup_id' },
    cash: async () => {
      const picked = await pickFromWallet(unit.tx, input.senderId, offer.offered, null, {
        recipientId: recipient.id, accepts: (note) => accepts(note, recipient), nonPayment: true, brandCashOnly: input.closedLoopOnly, at: unit.now,
      });
      return picked.ok ? picked.value : sendFailure(picked.errors);
    },
    holding: { off: 'into_escrow' },
    transfer: (picks) => {
      const snapshot = unit.create(transfer, transferId, { workflowType: 'trade', waitFor: 'trade', at: at.toISOString() });
      return {
        row: newTransfer({ id: transferId, at, money: sumPicks(picks, offer.offered[0].currency) }, {
          workflowType: 'trade', senderId: input.senderId, senderUid: offer.senderUid, recipientId: recipient.id, recipientUid: offer.recipientUid,
          senderPersonalId: input.senderPersonalId, recipientPersonalId: recipient.isIndividual ? recipient.id : null, appdata: input.appdata,
          details: {
            trade: { amounts: input.amounts.map(storedEntry), expect_amounts: input.expectAmounts.map(storedEntry) },
            alarms: [{ name: 'alarm.expire_trade', timestamp: expiresAt.toISOString() }],
          },
        }, snapshot),
        views: [{ profileId: input.senderId, role: 'sender' }, { profileId: recipient.id, role: 'recipient' }],
      };
    },
    // Into escrow: its movements are recorded when the trade is accepted.
    move: { from: walletHolder(input.senderId), to: escrowHolder(transferId), lines: { off: 'escrow_in' } },
  });
  if (!passed.ok) return unit.reject(passed);
  unit.schedule(transfer, transferId, 'trade_expire', expiresAt, { type: 'transfer.trade_expire', at: expiresAt.toISOString() });
  return { ok: true as const, transferId };
}

/** A plan named for a loop must be a live plan of the design whose id that loop is. */
async function plansMatch(ctx: TradesContext, plans: Record<string, string>): Promise<boolean> {
  for (const [loopId, planId] of Object.entries(plans)) {
    if (!(await store.planOfDesign(ctx.core.sql, planId, loopId))) return false;
  }
  return true;
}

/** The profile settler_uid names: any profile, the accepting business itself included (FerlySite names itself). */
async function settlerOf(ctx: TradesContext, settlerUid: string): Promise<string | null> {
  const parsed = parseUid(settlerUid);
  const profile = parsed ? await ctx.profiles.findByUid(ctx.core.sql, parsed.uid) : null;
  return profile?.id ?? null;
}

async function accept(ctx: TradesContext, input: AcceptTradeInput): Promise<TradeResult> {
  const { sql, commands } = ctx.core;
  const row = await store.selectTransfer(sql, input.transferId);
  if (!row || row.workflow_type !== 'trade' || !(await store.isViewer(sql, input.transferId, input.callerId))) return failure('transfer_not_found');
  if (row.recipient_id !== input.callerId) return failure('not_recipient');
  if (!(await plansMatch(ctx, input.distributionPlanIds))) return failure('named_plan_not_found');
  let settlerId: string | null = null;
  if (input.settlerUid !== undefined) {
    settlerId = await settlerOf(ctx, input.settlerUid);
    if (!settlerId) return failure('named_profile_not_found', 'settler_uid names no profile');
  }
  const trade = row.details.trade as { expect_amounts: TradeEntry[] };
  const expected = entriesMoney(trade.expect_amounts.map(readStoredEntry), 'expect_amounts');
  if (!expected.ok) throw new Error(`trade ${row.id} stored expect_amounts it cannot pay`);
  const refused = closedLoopRefusal(expected.value, input.closedLoopOnly);
  if (refused) return refused;
  const [sender, accepter] = await Promise.all([ctx.profiles.get(sql, row.sender_id!), ctx.profiles.get(sql, input.callerId)]);
  const locks = [{ kind: 'wallet', id: input.callerId }, { kind: 'wallet', id: row.sender_id! }, { kind: 'transfer', id: row.id }];
  const acceptance: Acceptance = { input, row, trade, expected: expected.value, sender, accepter, settlerId };
  return commands.run('transfer.accept_trade', locks, (unit: Unit<Failure>) => acceptIn(ctx, unit, acceptance));
}

/** A trade acceptance checked outside its command. */
interface Acceptance {
  input: AcceptTradeInput;
  row: store.TransferRow;
  trade: { expect_amounts: TradeEntry[] };
  expected: AmountEntry[];
  sender: ProfileRecord | null;
  accepter: ProfileRecord | null;
  settlerId: string | null;
}

/** Pays the expected cash to the sender and releases the escrow to the recipient, in one command. */
async function acceptIn(ctx: TradesContext, unit: Unit<Failure>, acceptance: Acceptance): Promise<TradeResult> {
  const { input, row, trade, expected, sender } = acceptance;
  const senderId = row.sender_id!;
  const snapshot = await unit.load(transfer, row.id);
  if (!snapshot || snapshot.value !== 'trade') return unit.reject(failure('not_waiting'));
  const at = unit.now;
  const currencies = [...new Set([row.currency, ...expected.map((entry) => entry.currency)])];
  await lockBalances(unit.tx, currencies.flatMap((currency) => [balanceLockKey(senderId, currency), balanceLockKey(input.callerId, currency)]));
  const paid = await pickFromWallet(unit.tx, input.callerId, expected, null, {
    recipientId: senderId, accepts: (note) => accepts(note, sender), nonPayment: true, brandCashOnly: input.closedLoopOnly, at: unit.now,
  });
  if (!paid.ok) return unit.reject(sendFailure(paid.errors.map((error) => ({ ...error, field_name: 'expect_amounts' }))));
  // The offered leg from the escrow (movement 1), then the paid leg (movement 2), each through the gate.
  const offeredLeg = await passGate(unit, {
    kind: 'release',
    transferId: row.id,
    // Moved into escrow by the sender's own start.
    authority: { off: 'sender_own_cash' },
    dedup: { off: 'ends_once' },
    cash: () => unexpiredEscrowPicks(unit, row.id),
    holding: { senderId, recipient: { id: input.callerId, isIndividual: true }, redeemed: new Set() },
    transfer: { off: 'recorded_by_path' },
    move: { from: escrowHolder(row.id), to: walletHolder(input.callerId), lines: (picks) => movementLines(picks, 1, 'move', senderId, input.callerId) },
  });
  if (!offeredLeg.ok) return unit.reject(offeredLeg);
  const offered = offeredLeg.picks;
  const passed = await passGate(unit, {
    kind: 'payment',
    transferId: row.id,
    authority: { closedLoopOnly: input.closedLoopOnly === true, fieldName: 'expect_amounts' },
    dedup: { off: 'ends_once' },
    cash: paid.value,
    holding: { senderId: input.callerId, recipient: { id: senderId, isIndividual: sender?.isIndividual ?? true }, redeemed: new Set() },
    transfer: { off: 'recorded_by_path' },
    move: { from: walletHolder(input.callerId), to: walletHolder(senderId), lines: (picks) => movementLines(picks, 2, 'move', input.callerId, senderId) },
  });
  if (!passed.ok) return unit.reject(passed);
  await redeemArrivalsIn(unit, row.id, [{ profile: sender, picks: paid.value }, { profile: acceptance.accepter, picks: offered }], 3);
  unit.cancelTimer(transfer, row.id, 'trade_expire');
  const acceptedTrade = { ...trade, settler_id: acceptance.settlerId, distribution_plan_ids: input.distributionPlanIds, paid: formatMinor(sumPicks(paid.value, expected[0].currency).minor, expected[0].currency) };
  await ctx.transfers.applyIn(unit, row.id, { type: 'transfer.trade_accept', at: at.toISOString() }, { details: { trade: acceptedTrade } });
  return { ok: true as const, transferId: row.id };
}

/** Brand cash a trade brings to a redeemer of its design leaves circulation and settles in the same command (issue 21 item 3). */
async function redeemArrivalsIn(unit: Unit<Failure>, transferId: string, arrivals: { profile: ProfileRecord | null; picks: readonly Pick[] }[], first: number): Promise<void> {
  let number = first;
  for (const { profile, picks } of arrivals) {
    if (!profile) continue;
    const redeemed = await redeemedLoopsOf(unit.tx, profile);
    const designIds = [...new Set(picks.filter((pick) => redeemed.has(pick.loopId) && pick.issuerId !== profile.id).map((pick) => pick.loopId))];
    if (designIds.length > 0) number = await redeemArrivedIn(unit, { transferId, redeemerId: profile.id, designIds, number });
  }
}
