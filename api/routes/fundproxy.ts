// ACH funding proxies: POST (or GET) /fundproxy/get-ach for apps with the get_fund_proxy app
// permission (Basic app authentication), and the operator's simulated ACH rail,
// POST /admin/fundproxy/deposit (the CLI's `cashloop fundproxy deposit`).
import { z } from 'zod';
import { fundProxyAccountDigits, fundProxyTraceCharsMax, loginCharsMax, routingNumberDigits } from '../../engine/limits.ts';
import type { FundProxyError, FundProxyFailure } from '../../engine/fundproxy/errors.ts';
import { errorTable, httpError, edgeErrors } from '../http/errors.ts';
import { amountField, boundedString } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';

export const fundProxyErrors = errorTable<FundProxyError>({
  invalid: edgeErrors.invalid,
  proxy_account_not_found: { status: 404, error: 'not_found', description: 'No funding proxy has this account number.' },
  recipient_wallet_closed: { status: 409, description: "The proxy's recipient wallet is closed; the deposit is returned." },
  issuer_not_permitted: { status: 409, description: "The proxy's issuer no longer has issue_open_loop; the deposit is returned." },
  trace_number_reused: { status: 409, description: 'This trace_number already names a deposit of another amount to this proxy.' },
});

function raise(failure: FundProxyFailure): never {
  throw httpError(fundProxyErrors, failure.error, { invalid: failure.invalid, description: failure.description });
}

const uid = boundedString(loginCharsMax, 1);
const getAchInput = z.object({
  routing_number: z.string().min(1, 'is required').max(routingNumberDigits, `must be ${routingNumberDigits} digits`),
  issuer_uid: uid,
  distributor_uid: uid.optional(),
  recipient_uid: uid,
}).strict();
const proxy = z.strictObject({
  id: z.string(),
  routing_number: z.string(),
  account_number: z.string(),
  issuer_id: z.string(),
  distributor_id: z.string().nullable(),
  recipient_id: z.string(),
  appdata: z.record(z.string(), z.string()),
  created: z.string(),
});

const getAch = (method: 'get' | 'post') =>
  defineRoute({
    method,
    path: '/fundproxy/get-ach',
    summary: 'Gets or creates an ACH funding proxy: money arriving on its account number is issued by the issuer, passed through the distributor if named, and lands with the recipient (idempotent).',
    tags: ['fund proxy'],
    caller: { kind: 'app', appPermission: 'get_fund_proxy' },
    input: getAchInput,
    appdata: true,
    response: proxy,
    async handler({ engine, input, app, appdata }) {
      const result = await engine.services.fundProxy.getAch({
        appId: app.clientId, appSite: app.site, routingNumber: input.routing_number, issuerUid: input.issuer_uid, distributorUid: input.distributor_uid, recipientUid: input.recipient_uid, appdata,
      });
      if (!result.ok) raise(result);
      return result.proxy;
    },
  });

export const fundProxyRoutes: RouteDefinition[] = [
  getAch('post'),
  getAch('get'),
  defineRoute({
    method: 'post',
    path: '/admin/fundproxy/deposit',
    summary: 'The simulated ACH rail: money arrives for a proxy\'s account number and becomes a receive_ach_confirm transfer (a repeated trace_number answers the first).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({
      account_number: z.string().min(1, 'is required').max(fundProxyAccountDigits, `must be ${fundProxyAccountDigits} digits`),
      amount: amountField,
      currency: z.literal('USD', { message: 'ACH moves USD only' }).default('USD'),
      trace_number: z.string().min(1).max(fundProxyTraceCharsMax).optional(),
    }).strict(),
    response: z.strictObject({ transfer_id: z.string(), duplicate: z.boolean() }),
    errors: [404, 409],
    async handler({ engine, input }) {
      const result = await engine.services.fundProxy.deposit({ accountNumber: input.account_number, amount: input.amount, currency: input.currency, traceNumber: input.trace_number });
      if (!result.ok) raise(result);
      return { transfer_id: result.transferId, duplicate: result.duplicate };
    },
  }),
];
