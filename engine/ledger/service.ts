// The ledger: issuance of open loop cash by the operator's designated issuer, holdings (constant
// time from the balances table), and the audit that proves no cash was created or lost.
import type { Core } from '../core.ts';
import { formatMinor, parsePositiveAmount } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import { transfer } from '../transfers/machine.ts';
import * as transferStore from '../transfers/store.ts';
import { stateFields, type TransferStateName } from '../transfers/machine.ts';
import { openLoopId } from './allocation.ts';
import { mediaUrlOf } from '../designs/images.ts';
import { failure, type Failure } from './errors.ts';
import * as store from './store.ts';

export const issuerSettingName = 'open_loop_issuer_id';
export const issueFeature = 'issue_open_loop';
const auditMismatchesMax = 20;

export interface AuditReport {
  ok: boolean;
  totals: { loop_id: string; currency: string; issued: string; redeemed: string; held: string; in_flight: string; reserved: string; expired: string }[];
  /** Per design: the open loop reserve and what its outstanding fundable brand cash needs. */
  reserves: { design_id: string; currency: string; reserve: string; needed: string }[];
  problems: string[];
}

export interface LedgerService {
  /** Designates the profile that issues open loop cash for the operator (it must have issue_open_loop). */
  setIssuer(profileId: string): Promise<{ ok: true } | Failure>;
  /** The designated issuer (read in db, by default outside any transaction). */
  issuer(db?: Queryable): Promise<string | null>;
  /** Issues open loop cash to a profile: movement 1 `issue` (from none to the issuer), movement 2 `grant` (issuer to holder). */
  issue(input: { toProfileId: string; amount: string; currency: string; issuerId?: string }): Promise<{ ok: true; transferId: string; serial: string } | Failure>;
  holdings(db: Queryable | undefined, profileId: string): Promise<{ loop_id: string; currency: string; title?: string; thumbnail?: string | null; amount: string; expiring: { amount: string; expire_time: string }[] }[]>;
  balance(db: Queryable, profileId: string, loopId: string, currency: string): Promise<bigint>;
  audit(db?: Queryable): Promise<AuditReport>;
  /** Adds a domain's own audit check (its problems join the report): point-of-sale settlements. */
  addAuditCheck(check: (db: Queryable) => Promise<string[]>): void;
}

export function createLedgerService(core: Core, profiles: ProfilesService): LedgerService {
  const { sql, commands } = core;
  const auditChecks: ((db: Queryable) => Promise<string[]>)[] = [];

  const service: LedgerService = {
    addAuditCheck(check) {
      auditChecks.push(check);
    },

    async setIssuer(profileId) {
      const profile = await profiles.get(sql, profileId);
      if (!profile) return failure('profile_not_found');
      if (!(await profiles.hasFeature(sql, profileId, issueFeature))) return failure('not_issuer', `profile ${profileId} lacks the ${issueFeature} feature`);
      await store.upsertSetting(sql, issuerSettingName, profileId);
      return { ok: true };
    },

    issuer(db = sql) {
      return store.selectSetting(db, issuerSettingName);
    },

    async issue(input) {
      const parsed = parsePositiveAmount(input.amount, input.currency);
      if (!parsed.ok) return failure('invalid_amount', parsed.error);
      const issuerId = input.issuerId ?? (await service.issuer(sql));
      if (!issuerId) return failure('no_issuer', 'no open loop issuer is designated; run `cashloop cash issuer --uid ...`');
      if (!(await profiles.hasFeature(sql, issuerId, issueFeature))) return failure('not_issuer');
      const holder = await profiles.get(sql, input.toProfileId);
      if (!holder) return failure('profile_not_found');
      const minor = parsed.value.minor;
      return commands.run('ledger.issue', [{ kind: 'wallet', id: holder.id }], async (unit) => {
        const transferId = await unit.newLongId('transfer');
        const at = unit.now;
        const snapshot = unit.create(transfer, transferId, { workflowType: 'grant', waitFor: 'none', at: at.toISOString() });
        await transferStore.insertTransfer(
          unit.tx,
          {
            id: transferId, workflowType: 'grant', senderId: issuerId, senderUid: `service:${issuerId}`, recipientId: holder.id, recipientUid: `service:${holder.id}`,
            senderPersonalId: null, recipientPersonalId: holder.isIndividual ? holder.id : null, currency: input.currency, amount: minor, at,
            state: stateFields(snapshot.value as TransferStateName), endAt: at, activityCount: snapshot.context.activityCount,
            private: true, message: null, messageSubject: null, appdata: {}, details: {},
          },
          holder.id === issuerId ? [{ profileId: holder.id, role: 'recipient' }] : [{ profileId: issuerId, role: 'sender' }, { profileId: holder.id, role: 'recipient' }],
        );
        const serial = await store.insertIssuedNote(unit.tx, { holderId: holder.id, loopId: openLoopId, currency: input.currency, issuerId, amount: minor, expiresAt: null }, at);
        const line = { loopId: openLoopId, currency: input.currency, issuerId, amount: minor };
        await store.insertMovements(unit.tx, transferId, [
          { number: 1, action: 'issue', fromId: null, toId: issuerId, ...line },
          { number: 2, action: 'grant', fromId: issuerId, toId: holder.id, ...line },
        ], at);
        return { ok: true as const, transferId, serial: String(serial) };
      });
    },

    async holdings(db = sql, profileId) {
      const rows = await store.selectHoldings(db, profileId);
      return rows.map((row) => ({
        loop_id: row.loop_id,
        currency: row.currency,
        // A brand cash LoopDescription names its design and shows its image thumbnail; open loop
        // entries keep the keys observed from the real service.
        ...(row.loop_id === openLoopId ? {} : { title: row.title ?? `Brand cash ${row.loop_id}`, thumbnail: row.image_media_id ? mediaUrlOf(core.config, row.image_media_id, 'thumbnail') : null }),
        amount: formatMinor(row.amount, row.currency),
        expiring: row.expiring.map((item) => ({ amount: formatMinor(BigInt(item.amount), row.currency), expire_time: new Date(item.expire_time).toISOString() })),
      }));
    },

    balance(db, profileId, loopId, currency) {
      return store.selectBalance(db, profileId, loopId, currency);
    },

    async audit(db = sql) {
      const rows = await store.selectAuditTotals(db);
      const problems: string[] = [];
      for (const row of rows) {
        const name = `${row.loop_id}/${row.currency}`;
        const live = row.held + row.in_flight + row.reserved;
        if (row.issued !== live + row.redeemed + row.expired) {
          problems.push(`${name}: issued (${row.issued}) != held + in flight + reserved + redeemed + expired (${live + row.redeemed + row.expired})`);
        }
        if (row.notes_live !== live) problems.push(`${name}: live notes (${row.notes_live}) != held + in flight + reserved (${live})`);
        if (row.notes_expired !== row.expired) problems.push(`${name}: expired notes (${row.notes_expired}) != expired total (${row.expired})`);
        if (row.expired_movements !== row.expired) problems.push(`${name}: expire movements (${row.expired_movements}) != expired total (${row.expired})`);
        if (row.notes_redeemed !== row.redeemed) problems.push(`${name}: redeemed notes (${row.notes_redeemed}) != redeemed total (${row.redeemed})`);
        if (row.issued_movements !== row.issued) problems.push(`${name}: issue movements (${row.issued_movements}) != issued total (${row.issued})`);
        if (row.redeemed_movements !== row.redeemed) problems.push(`${name}: deposit movements (${row.redeemed_movements}) != redeemed total (${row.redeemed})`);
      }
      for (const mismatch of await store.selectBalanceMismatches(db, auditMismatchesMax)) {
        problems.push(`wallet ${mismatch.profile_id} ${mismatch.loop_id}/${mismatch.currency}: balance ${mismatch.balance} != notes ${mismatch.notes}`);
      }
      const reserves = await store.selectReserves(db);
      for (const reserve of reserves) {
        if (reserve.reserve !== reserve.needed) problems.push(`design ${reserve.design_id} ${reserve.currency}: reserve (${reserve.reserve}) != what its brand cash needs (${reserve.needed})`);
      }
      const negative = await store.countNegativeBalances(db);
      if (negative > 0) problems.push(`${negative} negative balances`);
      const orphans = await store.countOrphanHeldNotes(db);
      if (orphans > 0) problems.push(`${orphans} notes held by transfers that have ended`);
      for (const check of auditChecks) problems.push(...(await check(db)));
      return {
        ok: problems.length === 0,
        totals: rows.map((row) => ({
          loop_id: row.loop_id, currency: row.currency, issued: formatMinor(row.issued, row.currency), redeemed: formatMinor(row.redeemed, row.currency),
          held: formatMinor(row.held, row.currency), in_flight: formatMinor(row.in_flight, row.currency),
          reserved: formatMinor(row.reserved, row.currency), expired: formatMinor(row.expired, row.currency),
        })),
        reserves: reserves.map((row) => ({ design_id: row.design_id, currency: row.currency, reserve: formatMinor(row.reserve, row.currency), needed: formatMinor(row.needed, row.currency) })),
        problems,
      };
    },
  };
  return service;
}
