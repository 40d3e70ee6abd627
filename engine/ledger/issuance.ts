// Issuance of open loop cash by the operator's designated issuer: designating it, and issuing to
// a holder as one `grant` transfer (movement 1 `issue` to the issuer, movement 2 `grant` to the holder).
import type { Unit } from '../actors/command.ts';
import { money, positiveMoneyOf, type Decimal } from '../money.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import { issuedPicks, passGate } from '../transfers/gate.ts';
import { openLoopId } from './allocation.ts';
import { failure, type Failure } from './errors.ts';
import type { LedgerContext } from './service-types.ts';
import * as store from './store.ts';

const issuerSettingName = 'open_loop_issuer_id';
export const issueFeature = 'issue_open_loop';

type IssueInput = { toProfileId: string; amount: Decimal; currency: string; issuerId?: string };

export async function setIssuer(ctx: LedgerContext, profileId: string): Promise<{ ok: true } | Failure> {
  const { sql } = ctx.core;
  const profile = await ctx.profiles.get(sql, profileId);
  if (!profile) return failure('named_profile_not_found');
  if (!(await ctx.profiles.hasFeature(sql, profileId, issueFeature))) return failure('not_issuer', `profile ${profileId} lacks the ${issueFeature} feature`);
  await store.upsertSetting(sql, issuerSettingName, profileId);
  return { ok: true };
}

export function issuer(ctx: LedgerContext, db: Queryable = ctx.core.sql): Promise<string | null> {
  return store.selectSetting(db, issuerSettingName);
}

/** The grant through the gate: the transfer, its note and its two movements, in the command's transaction. */
async function writeIssue(unit: Unit, input: IssueInput, issuerId: string, holder: ProfileRecord, minor: bigint): Promise<{ ok: true; transferId: string; serial: string }> {
  const transferId = await unit.newLongId('transfer');
  const issue = { holderId: holder.id, loopId: openLoopId, issuerId, money: money(input.currency, minor), expiresAt: null };
  const line = { loopId: openLoopId, issuerId, money: issue.money };
  const passed = await passGate(unit, {
    kind: 'issue',
    transferId,
    balances: { profileIds: [holder.id], currencies: [input.currency] },
    // The operator issues from the command line, the issuer's issue_open_loop feature checked before.
    authority: { off: 'no_caller' },
    // Each issue is a new grant.
    dedup: { off: 'no_request' },
    cash: issuedPicks(issue),
    holding: { off: 'open_loop' },
    transfer: {
      ended: {
        workflowType: 'grant', senderId: issuerId, recipientId: holder.id, recipientPersonalId: holder.isIndividual ? holder.id : null, currency: input.currency,
      },
      views: holder.id === issuerId ? [{ profileId: holder.id, role: 'recipient' }] : [{ profileId: issuerId, role: 'sender' }, { profileId: holder.id, role: 'recipient' }],
    },
    move: { issue, lines: [{ number: 1, action: 'issue', fromId: null, toId: issuerId, ...line }, { number: 2, action: 'grant', fromId: issuerId, toId: holder.id, ...line }] },
  });
  if (!passed.ok) throw new Error(`a grant passes every rung it climbs: ${passed.error}`);
  return { ok: true as const, transferId, serial: String(passed.serial) };
}

export async function issue(ctx: LedgerContext, input: IssueInput): Promise<{ ok: true; transferId: string; serial: string } | Failure> {
  const { sql, commands } = ctx.core;
  const parsed = positiveMoneyOf(input.amount, input.currency);
  if (!parsed.ok) return failure('invalid_amount', parsed.error);
  const issuerId = input.issuerId ?? (await issuer(ctx, sql));
  if (!issuerId) return failure('no_issuer', 'no open loop issuer is designated; run `cashloop cash issuer --uid ...`');
  if (!(await ctx.profiles.hasFeature(sql, issuerId, issueFeature))) return failure('not_issuer');
  const holder = await ctx.profiles.get(sql, input.toProfileId);
  if (!holder) return failure('named_profile_not_found');
  const minor = parsed.value.minor;
  return commands.run('ledger.issue', [{ kind: 'wallet', id: holder.id }], (unit) => writeIssue(unit, input, issuerId, holder, minor));
}
