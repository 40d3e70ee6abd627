// ACH money arriving for a proxy's account: one `receive_ach_confirm` transfer that issues open
// loop cash to the issuer and passes it, through the distributor when one is named, to the recipient.
import type { Unit } from '../actors/command.ts';
import { openLoopId } from '../ledger/allocation.ts';
import { issueFeature } from '../ledger/service.ts';
import { fundProxyTraceCharsMax } from '../limits.ts';
import { positiveMoneyOf } from '../money.ts';
import { issuedPicks, passGate } from '../transfers/gate.ts';
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
  const issue = { holderId: recipient.id, loopId: openLoopId, currency, issuerId: proxy.issuer_id, amount: minor, expiresAt: null };
  const line = { loopId: openLoopId, currency, issuerId: proxy.issuer_id, amount: minor };
  const passed = await passGate(unit, {
    kind: 'issue',
    transferId,
    balances: { profileIds: [recipient.id], currencies: [currency] },
    authority: { off: 'no token: the rail deposits for the proxy\'s recipient, who asked for open loop cash' },
    dedup: { off: 'the trace number is claimed with the deposit (fund_proxy_deposits) in this command' },
    cash: issuedPicks(issue),
    holding: { off: 'open loop cash: the holding rules are brand cash rules' },
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
export async function deposit(ctx: FundProxyContext, input: Parameters<FundProxyService['deposit']>[0]): ReturnType<FundProxyService['deposit']> {
  if (input.currency !== 'USD') return invalid('currency', 'ACH moves USD only');
  const parsed = positiveMoneyOf(input.amount, input.currency);
  if (!parsed.ok) return invalid('amount', parsed.error);
  if (input.traceNumber !== undefined && !new RegExp(`^[0-9A-Za-z-]{1,${fundProxyTraceCharsMax}}$`).test(input.traceNumber)) {
    return invalid('trace_number', `must be 1 to ${fundProxyTraceCharsMax} letters, digits or hyphens`);
  }
  const proxy = /^[0-9]{12}$/.test(input.accountNumber) ? await store.selectProxyByAccount(ctx.core.sql, input.accountNumber) : null;
  if (!proxy) return { ok: false, error: 'proxy_account_not_found' };
  const trace = input.traceNumber;
  return ctx.core.commands.run('fundproxy.deposit', [{ kind: 'wallet', id: proxy.recipient_id }], async (unit: Unit<FundProxyFailure>) => {
    if (trace) {
      // A repeated trace answers the first deposit when it is the same one: the amount and currency too.
      const earlier = await store.selectDeposit(unit.tx, proxy.id, trace);
      const first = earlier ? await transferById(unit.tx, earlier) : null;
      if (earlier && (first?.amount !== parsed.value.minor || first.currency !== input.currency)) return unit.reject({ ok: false, error: 'trace_number_reused' });
      if (earlier) return { ok: true as const, transferId: earlier, duplicate: true };
    }
    const refused = await depositRefusal(ctx, unit, proxy);
    if (refused) return unit.reject(refused);
    const transferId = await writeDeposit(ctx, unit, proxy, parsed.value.minor, input.currency);
    if (trace && !(await store.insertDeposit(unit.tx, proxy.id, trace, transferId))) throw new Error(`trace ${trace} was claimed concurrently`);
    return { ok: true as const, transferId, duplicate: false };
  });
}
