// ACH funding proxies: `getAch` answers (creating once) an account number at the service's bank
// for an issuer, an optional distributor and a recipient; `deposit` is money arriving on the
// simulated ACH rail: one `receive_ach_confirm` transfer that issues open loop cash (movement
// `issue` to the issuer), grants it to the distributor when one is named and passes it on to the
// recipient, whose wallet holds the note, with the proxy's appdata.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { randomDigits } from '../ids.ts';
import { openLoopId } from '../ledger/allocation.ts';
import { issueFeature } from '../ledger/service.ts';
import * as ledgerStore from '../ledger/store.ts';
import { appdataCharsMax, fundProxyAccountDigits, fundProxyTraceCharsMax } from '../limits.ts';
import { parsePositiveAmount } from '../money.ts';
import type { ProfileRecord, ProfilesService } from '../profiles/service.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import { appdataChars } from '../transfers/service.ts';
import * as transferStore from '../transfers/store.ts';
import { parseUid } from '../uids.ts';
import type { FundProxyFailure } from './errors.ts';
import * as store from './store.ts';

export interface FundProxyJson {
  id: string;
  routing_number: string;
  account_number: string;
  issuer_id: string;
  distributor_id: string | null;
  recipient_id: string;
  appdata: Record<string, string>;
  created: string;
}

export interface FundProxyService {
  getAch(input: { appId: string; routingNumber: string; issuerUid: string; distributorUid?: string; recipientUid: string; appdata: Record<string, string> }): Promise<{ ok: true; proxy: FundProxyJson } | FundProxyFailure>;
  /** ACH money arriving for an account: issued and delivered; a repeated trace number answers the first transfer. */
  deposit(input: { accountNumber: string; amount: string; currency: string; traceNumber?: string }): Promise<{ ok: true; transferId: string; duplicate: boolean } | FundProxyFailure>;
}

const invalid = (field: string, message: string): FundProxyFailure => ({ ok: false, error: 'invalid', invalid: { [field]: message } });

/** The ABA routing number checksum: 3, 7, 1 weights over the nine digits sum to a multiple of 10. */
export function routingNumberValid(text: string): boolean {
  if (!/^[0-9]{9}$/.test(text)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  return [...text].reduce((sum, digit, index) => sum + Number(digit) * weights[index], 0) % 10 === 0;
}

const json = (row: store.FundProxyRow): FundProxyJson => ({
  id: row.id, routing_number: row.routing_number, account_number: row.account_number, issuer_id: row.issuer_id, distributor_id: row.distributor_id,
  recipient_id: row.recipient_id, appdata: row.appdata, created: row.created_at.toISOString(),
});

export function createFundProxyService(core: Core, dependencies: { profiles: ProfilesService }): FundProxyService {
  const { sql, commands } = core;
  const { profiles } = dependencies;

  /** A UID of type service or username naming a profile, or the field's error. */
  async function party(uid: string, field: string): Promise<ProfileRecord | FundProxyFailure> {
    const parsed = parseUid(uid);
    if (!parsed || (parsed.type !== 'service' && parsed.type !== 'username')) return invalid(field, 'must be a service:<id> or username:<name> UID');
    const profile = await profiles.findByUid(sql, parsed.uid);
    return profile ?? invalid(field, 'no profile has this UID');
  }

  async function writeDeposit(unit: Unit, proxy: store.FundProxyRow, minor: bigint, currency: string): Promise<string> {
    const transferId = await unit.newLongId('transfer');
    const at = unit.now;
    const snapshot = unit.create(transfer, transferId, { workflowType: 'receive_ach_confirm', waitFor: 'none', at: at.toISOString() });
    const recipient = (await profiles.get(unit.tx, proxy.recipient_id))!;
    const views = [
      { profileId: proxy.issuer_id, role: 'sender' },
      ...(proxy.distributor_id && proxy.distributor_id !== proxy.issuer_id ? [{ profileId: proxy.distributor_id, role: 'distributor' }] : []),
      ...(proxy.recipient_id !== proxy.issuer_id && proxy.recipient_id !== proxy.distributor_id ? [{ profileId: proxy.recipient_id, role: 'recipient' }] : []),
    ];
    await transferStore.insertTransfer(unit.tx, {
      id: transferId, workflowType: 'receive_ach_confirm', senderId: proxy.issuer_id, senderUid: `service:${proxy.issuer_id}`, recipientId: recipient.id,
      recipientUid: `service:${recipient.id}`, senderPersonalId: null, recipientPersonalId: recipient.isIndividual ? recipient.id : null, currency, amount: minor, at,
      state: stateFields(snapshot.value as TransferStateName), endAt: at, activityCount: snapshot.context.activityCount, private: true, message: null, messageSubject: null,
      appdata: proxy.appdata, details: { fund_proxy_id: proxy.id },
    }, views);
    await ledgerStore.insertIssuedNote(unit.tx, { holderId: recipient.id, loopId: openLoopId, currency, issuerId: proxy.issuer_id, amount: minor, expiresAt: null }, at);
    const line = { loopId: openLoopId, currency, issuerId: proxy.issuer_id, amount: minor };
    const hops = proxy.distributor_id
      ? [
          { action: 'grant', fromId: proxy.issuer_id, toId: proxy.distributor_id },
          { action: 'move', fromId: proxy.distributor_id, toId: recipient.id },
        ]
      : [{ action: 'grant', fromId: proxy.issuer_id, toId: recipient.id }];
    await ledgerStore.insertMovements(unit.tx, transferId, [
      { number: 1, action: 'issue', fromId: null, toId: proxy.issuer_id, ...line },
      ...hops.map((hop, index) => ({ number: index + 2, ...hop, ...line })),
    ], at);
    return transferId;
  }

  return {
    async getAch(input) {
      if (!routingNumberValid(input.routingNumber)) return invalid('routing_number', 'must be a 9-digit ABA routing number');
      if (appdataChars(input.appdata) > appdataCharsMax) return invalid('appdata', `must total at most ${appdataCharsMax} characters`);
      const issuer = await party(input.issuerUid, 'issuer_uid');
      if ('ok' in issuer) return issuer;
      if (!(await profiles.hasFeature(sql, issuer.id, issueFeature))) return invalid('issuer_uid', 'this profile may not issue USD');
      const distributor = input.distributorUid ? await party(input.distributorUid, 'distributor_uid') : null;
      if (distributor && 'ok' in distributor) return distributor;
      const recipient = await party(input.recipientUid, 'recipient_uid');
      if ('ok' in recipient) return recipient;
      const row = await commands.run('fundproxy.get_ach', [{ kind: 'fund_proxy', id: recipient.id }], async (unit) =>
        store.insertOrSelectProxy(unit.tx, {
          id: await unit.newShortId('fund_proxy'), app_id: input.appId, routing_number: input.routingNumber, account_number: randomDigits(fundProxyAccountDigits),
          issuer_id: issuer.id, distributor_id: distributor?.id ?? null, recipient_id: recipient.id, appdata: input.appdata, created_at: unit.now,
        }),
      );
      return { ok: true, proxy: json(row) };
    },

    async deposit(input) {
      if (input.currency !== 'USD') return invalid('currency', 'ACH moves USD only');
      const parsed = parsePositiveAmount(input.amount, input.currency);
      if (!parsed.ok) return invalid('amount', parsed.error);
      if (input.traceNumber !== undefined && !new RegExp(`^[0-9A-Za-z-]{1,${fundProxyTraceCharsMax}}$`).test(input.traceNumber)) {
        return invalid('trace_number', `must be 1 to ${fundProxyTraceCharsMax} letters, digits or hyphens`);
      }
      const proxy = /^[0-9]{12}$/.test(input.accountNumber) ? await store.selectProxyByAccount(sql, input.accountNumber) : null;
      if (!proxy) return { ok: false, error: 'account_not_found' };
      const trace = input.traceNumber;
      return commands.run('fundproxy.deposit', [{ kind: 'wallet', id: proxy.recipient_id }], async (unit) => {
        if (trace) {
          const earlier = await store.selectDeposit(unit.tx, proxy.id, trace);
          if (earlier) return { ok: true as const, transferId: earlier, duplicate: true };
        }
        const transferId = await writeDeposit(unit, proxy, parsed.value.minor, input.currency);
        if (trace && !(await store.insertDeposit(unit.tx, proxy.id, trace, transferId))) throw new Error(`trace ${trace} was claimed concurrently`);
        return { ok: true as const, transferId, duplicate: false };
      });
    },
  };
}
