// The operator's ledger API (the CLI's `cash`, `audit`, `accounts` and `fx` commands): designate
// the open loop issuer, issue cash, audit the ledger, register bank accounts, set exchange rates.
import { holding } from '../http/schemas.ts';
import { z } from 'zod';
import type { EdgeEngine } from '../../engine/engine.ts';
import { dfiAccountFieldCharsMax, fxRateCharsMax, loginCharsMax } from '../../engine/limits.ts';
import { canonicalUidOf } from '../../engine/profiles/names.ts';
import { edgeErrors, httpError } from '../http/errors.ts';
import { amountField, boundedString, currencyField } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { raise } from './ledger-errors.ts';
import { accountOf, recipientAccountField } from './payouts.ts';
import { profileErrors } from './profiles.ts';

const empty = z.object({}).strict();
const uidField = boundedString(loginCharsMax, 1);

/** The forms of a UID every admin call takes (canonicalUidOf), for error answers and the CLI. */
export const uidForms = 'service:<id> or the bare 10-digit id, email:<address> or the address, phone:<number> or +<E.164 number>, username:<name>';

/** The id of the profile a UID names, in any of the uidForms; null when none. */
export async function findProfileId(engine: EdgeEngine, uid: string): Promise<string | null> {
  const canonical = canonicalUidOf(uid);
  const profile = canonical ? await engine.services.profileAccess.findByUid(canonical) : null;
  return profile?.id ?? null;
}

/** The profile a UID in a body names, or a 400 on the field. */
export async function profileIdOf(engine: EdgeEngine, uid: string, field: string): Promise<string> {
  const profileId = await findProfileId(engine, uid);
  if (!profileId) throw httpError(edgeErrors, 'invalid', { invalid: { [field]: `no profile has this UID (a UID is ${uidForms})` } });
  return profileId;
}

/** The profile a UID in a path names, or a 404: an admin read of an unknown profile is not an empty answer. */
export async function pathProfileIdOf(engine: EdgeEngine, uid: string): Promise<string> {
  const profileId = await findProfileId(engine, uid);
  if (!profileId) throw httpError(profileErrors, 'profile_not_found', { description: `No profile has the UID ${uid} (a UID is ${uidForms}).` });
  return profileId;
}

const issuerAnswer = z.strictObject({ issuer_id: z.string().nullable() });
const ratesAnswer = z.strictObject({ rates: z.array(z.strictObject({ source_currency: z.string(), dest_currency: z.string(), rate: z.string() })) });

export const ledgerAdminRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/admin/ledger/issuer',
    summary: 'Designates the profile (with the issue_open_loop feature) that issues open loop cash for the operator.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({ uid: uidField }).strict(),
    response: issuerAnswer,
    async handler({ engine, input }) {
      const profileId = await profileIdOf(engine, input.uid, 'uid');
      const result = await engine.services.ledger.cash.setIssuer(profileId);
      if (!result.ok) raise(result);
      return { issuer_id: profileId };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/ledger/issuer',
    summary: 'The designated open loop issuer.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: issuerAnswer,
    async handler({ engine }) {
      return { issuer_id: await engine.services.ledger.cash.issuer() };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/ledger/issue',
    summary: 'Issues open loop cash from the designated issuer to a profile (movements issue and grant).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({ to_uid: uidField, amount: amountField, currency: currencyField }).strict(),
    response: z.strictObject({ transfer_id: z.string(), serial_number: z.string(), profile_id: z.string() }),
    async handler({ engine, input }) {
      const toProfileId = await profileIdOf(engine, input.to_uid, 'to_uid');
      const result = await engine.services.ledger.cash.issue({ toProfileId, amount: input.amount, currency: input.currency });
      if (!result.ok) raise(result);
      return { transfer_id: result.transferId, serial_number: result.serial, profile_id: toProfileId };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/ledger/audit',
    summary: 'Verifies the ledger: per loop and currency, issued = held + in flight + redeemed; every note accounted for; no negative balance; each redemption paid or owed its terms. Lists the reserve each distributor owes.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: z.strictObject({
      ok: z.boolean(),
      totals: z.array(z.strictObject({
        loop_id: z.string(), currency: z.string(), issued: z.string(), redeemed: z.string(), held: z.string(), in_flight: z.string(), reserved: z.string(), expired: z.string(),
      })),
      reserves: z.array(z.strictObject({ design_id: z.string(), currency: z.string(), reserve: z.string(), needed: z.string() })),
      problems: z.array(z.string()),
      // Cashloop's addition (docs/brand-cash.md): per design and distributor, the reserve its closed-loop sales left owed.
      owed: z.array(z.strictObject({ design_id: z.string(), distributor_id: z.string(), currency: z.string(), reserve_owed: z.string(), pending: z.string(), settled: z.string() })),
    }),
    async handler({ engine }) {
      const [report, owed] = await Promise.all([engine.services.ledger.cash.audit(), engine.services.designs.adminOwed()]);
      return { ...report, owed };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/ledger/holdings/:profileId',
    summary: "A profile's holdings (constant time from the balances table); the profile by id or any UID, 404 when none.",
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: z.strictObject({ holdings: z.array(holding) }),
    errors: [404],
    async handler({ engine, params }) {
      const profileId = await pathProfileIdOf(engine, params.profileId);
      return { holdings: await engine.services.ledger.cash.holdings(undefined, profileId) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/ledger/accounts',
    summary: 'Registers a bank (DFI) account to a profile.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: recipientAccountField.extend({
      uid: uidField,
      holder_name: boundedString(dfiAccountFieldCharsMax).optional(),
      alias: boundedString(dfiAccountFieldCharsMax).optional(),
    }).strict(),
    response: z.strictObject({ account_id: z.string(), profile_id: z.string() }),
    async handler({ engine, input }) {
      const profileId = await profileIdOf(engine, input.uid, 'uid');
      const result = await engine.services.ledger.payouts.addAccount(profileId, accountOf(input, { defaultCurrency: 'USD', alias: input.alias ?? '', holderName: input.holder_name ?? '' }));
      if (!result.ok) raise(result);
      return { account_id: result.accountId, profile_id: profileId };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/ledger/fx-rates',
    summary: 'Sets the exchange rate (dest units per source unit) send-fx uses.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({ source_currency: currencyField, dest_currency: currencyField, rate: z.string().max(fxRateCharsMax) }).strict(),
    response: ratesAnswer,
    async handler({ engine, input }) {
      const result = await engine.services.ledger.payouts.setRate(input.source_currency, input.dest_currency, input.rate);
      if (!result.ok) raise(result);
      return { rates: await engine.services.ledger.payouts.rates() };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/ledger/fx-rates',
    summary: 'The exchange-rate table.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: ratesAnswer,
    async handler({ engine }) {
      return { rates: await engine.services.ledger.payouts.rates() };
    },
  }),
];
