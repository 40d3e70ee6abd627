// get-ach: the account number at the service's bank for an issuer, an optional distributor and a
// recipient, created once and answered again for the same parties and app.
import { randomDigits } from '../ids.ts';
import { issueFeature } from '../ledger/service.ts';
import { appdataCharsMax, fundProxyAccountDigits } from '../limits.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { appdataChars } from '../transfers/service.ts';
import { parseUid } from '../uids.ts';
import { invalid, type FundProxyFailure } from './errors.ts';
import type { FundProxyContext, FundProxyJson, FundProxyService } from './types.ts';
import * as store from './store.ts';

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

/** One answer for a party that is not found, of another site, or not allowed: it tells nothing of who exists. */
const unknownParty = 'names no profile of this app\'s site that may take this part';

/** A UID of type service or username naming a profile of the app's site, or the field's error. */
async function party(ctx: FundProxyContext, uid: string, field: string, site: string): Promise<ProfileRecord | FundProxyFailure> {
  const parsed = parseUid(uid);
  if (!parsed || (parsed.type !== 'service' && parsed.type !== 'username')) return invalid(field, 'must be a service:<id> or username:<name> UID');
  const profile = await ctx.profiles.findByUid(ctx.core.sql, parsed.uid);
  return profile && profile.site === site ? profile : invalid(field, unknownParty);
}

export async function getAch(ctx: FundProxyContext, input: Parameters<FundProxyService['getAch']>[0]): ReturnType<FundProxyService['getAch']> {
  if (!routingNumberValid(input.routingNumber)) return invalid('routing_number', 'must be a 9-digit ABA routing number');
  if (appdataChars(input.appdata) > appdataCharsMax) return invalid('appdata', `must total at most ${appdataCharsMax} characters`);
  const issuer = await party(ctx, input.issuerUid, 'issuer_uid', input.appSite);
  if ('ok' in issuer) return issuer;
  if (!(await ctx.profiles.hasFeature(ctx.core.sql, issuer.id, issueFeature))) return invalid('issuer_uid', unknownParty);
  const distributor = input.distributorUid ? await party(ctx, input.distributorUid, 'distributor_uid', input.appSite) : null;
  if (distributor && 'ok' in distributor) return distributor;
  const recipient = await party(ctx, input.recipientUid, 'recipient_uid', input.appSite);
  if ('ok' in recipient) return recipient;
  const row = await ctx.core.commands.run('fundproxy.get_ach', [{ kind: 'fund_proxy', id: recipient.id }], async (unit) =>
    store.insertOrSelectProxy(unit.tx, {
      id: await unit.newShortId('fund_proxy'), app_id: input.appId, routing_number: input.routingNumber, account_number: randomDigits(fundProxyAccountDigits),
      issuer_id: issuer.id, distributor_id: distributor?.id ?? null, recipient_id: recipient.id, appdata: input.appdata, created_at: unit.now,
    }),
  );
  return { ok: true, proxy: json(row) };
}
