// ACH money arriving for a proxy's account: one `receive_ach_confirm` transfer that issues open
// loop cash to the issuer and passes it, through the distributor when one is named, to the recipient.
import type { Unit } from '../actors/command.ts';
import { openLoopId } from '../ledger/allocation.ts';
import { issueFeature } from '../ledger/service.ts';
import { fundProxyTraceCharsMax } from '../limits.ts';
import { money, positiveMoneyOf } from '../money.ts';
import { duplicate, type Duplicate } from '../ledger/errors.ts';
import { issuedPicks, passGate } from '../transfers/gate.ts';
import { onceByKey, requestDigest, type KeyRecord, type KeyedRequest } from '../transfers/idempotency.ts';
import { transferById } from '../transfers/rows.ts';
import { invalid, type FundProxyFailure } from './errors.ts';
import type { FundProxyContext, FundProxyService } from './types.ts';
import * as store from './store.ts';

/** Who sees the transfer: the issuer as sender, then the distributor and the recipient once each. */
function viewsOf(proxy: store.FundProxyRow): { profileId: string; role: string }[] {
  return [
    { profileId: proxy.issuer_id, role: 'sender' },
    ...(proxy.distributor_id && proxy.distributor_id !== proxy.issuer_id ? [{ profileId: proxy.distributor_id, role: 'distributor' }] : []),
    ...(proxy.recipient_id !== proxy.issuer_id && proxy.recipient_id !== proxy.distributor_id ? [{ profileId: proxy.recipient_id, role: 'recipient' }] : []),
  ];
}

/** The movements after `issue`: a grant to the recipient, or a grant to the distributor and a move on. */
function hopsOf(proxy: store.FundProxyRow, recipientId: string): { action: string; fromId: string; toId: string }[] {
  return proxy.distributor_id
    ? [
        { action: 'grant', fromId: proxy.issuer_id, toId: proxy.distributor_id },
        { action: 'move', fromId: proxy.distributor_id, toId: recipientId },
      ]
    : [{ action: 'grant', fromId: proxy.issuer_id, toId: recipientId }];
}

/** The deposit through the gate: open loop cash issued to the recipient, one transfer; a closed wallet takes nothing. */
async function writeDeposit(ctx: FundProxyContext, unit: Unit<FundProxyFailure>, proxy: store.FundProxyRow, minor: bigint, currency: string): Promise<string> {
  const transferId = await unit.newLongId('transfer');
  const recipient = (await ctx.profiles.get(unit.tx, proxy.recipient_id))!;
  const issue = { holderId: recipient.id, loopId: openLoopId, issuerId: proxy.issuer_id, money: money(currency, minor), expiresAt: null };
  const line = { loopId: openLoopId, issuerId: proxy.issuer_id, money: issue.money };
  const passed = await passGate(unit, {
    kind: 'issue',
    transferId,
    balances: { profileIds: [recipient.id], currencies: [currency] },
    // The rail deposits for the proxy's recipient, who asked for open loop cash.
    authority: { off: 'no_caller' },
    // The trace number is claimed with the deposit (fund_proxy_deposits) in this command.
    dedup: { off: 'own_key_store' },
    cash: issuedPicks(issue),
    holding: { off: 'open_loop' },
    transfer: {
      ended: {
        workflowType: 'receive_ach_confirm', senderId: proxy.issuer_id, recipientId: recipient.id, recipientPersonalId: recipient.isIndividual ? recipient.id : null,
        currency, appdata: proxy.appdata, details: { fund_proxy_id: proxy.id },
      },
      views: viewsOf(proxy),
    },
    move: { issue, lines: [{ number: 1, action: 'issue', fromId: null, toId: proxy.issuer_id, ...line }, ...hopsOf(proxy, recipient.id).map((hop, index) => ({ number: index + 2, ...hop, ...line }))] },
  });
  // The wallet rung is the only one on that refuses: a closed recipient wallet.
  if (!passed.ok) return unit.reject({ ok: false, error: 'recipient_wallet_closed' });
  return transferId;
}

/**
 * What the world says to money arriving now: an issuer that lost issue_open_loop since the proxy
 * was made issues nothing (and the gate takes nothing into a closed wallet, as a send to it is
 * refused). The rail returns the deposit; nothing is written, so the same trace number can arrive again later.
 */
async function depositRefusal(ctx: FundProxyContext, unit: Unit, proxy: store.FundProxyRow): Promise<FundProxyFailure | null> {
  if (!(await ctx.profiles.hasFeature(unit.tx, proxy.issuer_id, issueFeature))) return { ok: false, error: 'issuer_not_permitted' };
  return null;
}

type DepositResult = Awaited<ReturnType<FundProxyService['deposit']>>;

export async function deposit(ctx: FundProxyContext, input: Parameters<FundProxyService['deposit']>[0]): Promise<DepositResult> {
  if (input.currency !== 'USD') return invalid('currency', 'ACH moves USD only');
  const parsed = positiveMoneyOf(input.amount, input.currency);
  if (!parsed.ok) return invalid('amount', parsed.error);
  if (input.traceNumber !== undefined && !new RegExp(`^[0-9A-Za-z-]{1,${fundProxyTraceCharsMax}}$`).test(input.traceNumber)) {
    return invalid('trace_number', `must be 1 to ${fundProxyTraceCharsMax} letters, digits or hyphens`);
  }
  const proxy = /^[0-9]{12}$/.test(input.accountNumber) ? await store.selectProxyByAccount(ctx.core.sql, input.accountNumber) : null;
  if (!proxy) return { ok: false, error: 'proxy_account_not_found' };
  const minor = parsed.value.minor;
  const key = traceKey(proxy, input.traceNumber, minor, input.currency);
  // A repeated trace answers the first deposit when it is the same one (the amount and currency), else 409 trace_number_reused.
  return onceByKey<DepositResult, KeyRecord, FundProxyFailure>(ctx.core.sql, key, ctx.core.clock.now(), () => depositOnce(ctx, proxy, minor, input.currency, key && { traceNumber: input.traceNumber!, digest: key.digest }),
    ({ transferId }) => ({ ok: true as const, transferId, duplicate: true }), () => ({ ok: false, error: 'trace_number_reused' }));
}

/** A deposit that is not a repeat: its command, which claims the trace number with the deposit (the row names the transfer); Duplicate when a concurrent deposit took it first. */
function depositOnce(ctx: FundProxyContext, proxy: store.FundProxyRow, minor: bigint, currency: string, trace: { traceNumber: string; digest: string } | null) {
  return ctx.core.commands.run('fundproxy.deposit', [{ kind: 'wallet', id: proxy.recipient_id }], async (unit: Unit<FundProxyFailure | Duplicate>) => {
    const refused = await depositRefusal(ctx, unit, proxy);
    if (refused) return unit.reject(refused);
    const transferId = await writeDeposit(ctx, unit, proxy, minor, currency);
    if (trace && !(await store.insertDeposit(unit.tx, { proxyId: proxy.id, ...trace, transferId }))) return unit.reject(duplicate());
    return { ok: true as const, transferId, duplicate: false };
  });
}

/** A deposit's trace number, kept in fund_proxy_deposits for ever: the key the one idempotency wrapper reads. */
function traceKey(proxy: store.FundProxyRow, traceNumber: string | undefined, minor: bigint, currency: string): KeyedRequest<KeyRecord> | null {
  if (traceNumber === undefined) return null;
  return {
    read: async (db) => {
      const deposit = await store.selectDeposit(db, proxy.id, traceNumber);
      return deposit && { transferId: deposit.transfer_id, digest: deposit.request_digest };
    },
    digest: requestDigest({ call: 'fund_deposit', terms: { currency, amount: minor } }),
    // Traces claimed before migration 1050: the first deposit's amount and currency.
    sameAsUndigested: async (db, { transferId }) => {
      const first = await transferById(db, transferId);
      return first?.amount === minor && first.currency === currency;
    },
  };
}
