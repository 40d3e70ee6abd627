// Reads of transfers: TransferDetail for stakeholders, history (offset pages over the per-profile
// view index), history_sync (keyset over (sync_ts, transfer_id)), and presend.
import type { Core } from '../core.ts';
import { openLoopId, parseSerialNumbers, specificity, type Note } from '../ledger/allocation.ts';
import { walletHolder } from '../ledger/cash.ts';
import { failure, sendFailure, type Failure } from '../ledger/errors.ts';
import * as ledgerStore from '../ledger/store.ts';
import { formatMinor } from '../money.ts';
import type { ProfileRecord, ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import { accepts, redeemedLoopsOf, type TransfersService } from './service.ts';
import { selectLoopLooks } from '../designs/store.ts';
import { mediaUrlOf } from '../designs/images.ts';
import * as store from './store.ts';
import { createPaycodeSecrets } from './paycode-secrets.ts';
import { partyFromProfile, steps, transferDetailJson, transferJson, type PartyInfo } from './views.ts';

export interface HistoryInput {
  profileId: string;
  offset: number;
  limit: number;
  orderColumn: 'start' | 'timestamp';
  orderDirection: 'asc' | 'desc';
  appdata: Record<string, string>;
}

export interface SyncInput {
  profileId: string;
  syncTs: Date;
  transferId: string | null;
  limit: number;
  countRemain: boolean;
}

export interface TransferQueries {
  detail(viewerId: string, transferId: string, db?: Queryable): Promise<{ ok: true; transfer: Record<string, unknown> } | Failure>;
  /** Transfer (list shape) for any stakeholder. */
  summary(transferId: string): Promise<Record<string, unknown>>;
  history(input: HistoryInput): Promise<{ results: Record<string, unknown>[]; more: boolean }>;
  sync(input: SyncInput): Promise<{ results: Record<string, unknown>[]; more: boolean; first_sync_ts: string | null; last_sync_ts: string | null; remain?: number }>;
  presend(input: { senderId: string; recipientUid: string; senderUid?: string; serialNumbers?: string; closedLoopOnly?: boolean }, transfers: TransfersService): Promise<{ ok: true; body: Record<string, unknown> } | Failure>;
  partyInfo(profile: ProfileRecord, uid?: string): PartyInfo;
}

/** Notes summed by loop, currency and issuer (presend limited to chosen serial numbers). */
function summarize(notes: readonly Note[]): ledgerStore.LoopSummaryRow[] {
  const byLoop = new Map<string, ledgerStore.LoopSummaryRow>();
  for (const note of notes) {
    const key = `${note.loopId}\u0000${note.currency}\u0000${note.issuerId}`;
    const row = byLoop.get(key) ?? { loop_id: note.loopId, currency: note.currency, issuer_id: note.issuerId, amount: 0n };
    row.amount += note.amount;
    byLoop.set(key, row);
  }
  return [...byLoop.values()];
}

export function createTransferQueries(core: Core, profiles: ProfilesService): TransferQueries {
  const paycodeSecrets = createPaycodeSecrets(core);
  const { sql } = core;
  const publicUrl = core.config.publicUrl;

  function partyInfo(profile: ProfileRecord, uid?: string): PartyInfo {
    const chosen = uid ?? `service:${profile.id}`;
    const colon = chosen.indexOf(':');
    return {
      title: profile.title,
      screen_name: profile.username ?? '',
      is_individual: profile.isIndividual,
      uid_value: chosen.slice(colon + 1),
      uid_type: chosen.slice(0, colon),
      original: chosen.slice(colon + 1),
    };
  }

  async function parties(db: Queryable, rows: readonly store.TransferRow[]): Promise<Map<string, PartyInfo>> {
    const ids = new Set<string>();
    for (const row of rows) {
      if (row.sender_id) ids.add(row.sender_id);
      if (row.recipient_id) ids.add(row.recipient_id);
    }
    const map = new Map<string, PartyInfo>();
    for (const row of await store.selectParties(db, [...ids])) {
      map.set(row.id, partyFromProfile(row.id, row.title, row.username, row.is_individual));
    }
    return map;
  }

  async function listJson(db: Queryable, rows: store.TransferRow[]): Promise<Record<string, unknown>[]> {
    const [movements, infos] = await Promise.all([ledgerStore.selectMovements(db, rows.map((row) => row.id)), parties(db, rows)]);
    const byTransfer = new Map<string, ledgerStore.MovementRow[]>();
    for (const movement of movements) byTransfer.set(movement.transfer_id, [...(byTransfer.get(movement.transfer_id) ?? []), movement]);
    return rows.map((row) => transferJson(row, byTransfer.get(row.id) ?? [], infos));
  }

  return {
    partyInfo,

    async detail(viewerId, transferId, db = sql) {
      const bundle = await store.selectTransferBundle(db, transferId);
      if (!bundle || !bundle.stakeholders.some((stakeholder) => stakeholder.profile_id === viewerId)) return failure('transfer_not_found');
      const { row, stakeholders, movements } = bundle;
      let { paycode } = bundle;
      // Only the sender's view shows the code (views.ts decides); open it for that view alone.
      if (paycode?.code_sealed && paycode.sender_id === viewerId) paycode = { ...paycode, code: (await paycodeSecrets.open(db, paycode.code_sealed)) ?? '' };
      const infos = await parties(db, [row]);
      return { ok: true, transfer: transferDetailJson(row, movements, infos, { viewerId, paycode, publicUrl, stakeholders, steps: steps(row) }) };
    },

    async summary(transferId) {
      const row = await store.selectTransfer(sql, transferId);
      if (!row) throw new Error(`transfer ${transferId} is missing`);
      return (await listJson(sql, [row]))[0];
    },

    async history(input) {
      const rows = await store.selectHistory(sql, {
        profileId: input.profileId, orderColumn: input.orderColumn, descending: input.orderDirection === 'desc', offset: input.offset, limit: input.limit, appdata: input.appdata,
      });
      const more = rows.length > input.limit;
      return { results: await listJson(sql, rows.slice(0, input.limit)), more };
    },

    async sync(input) {
      const rows = await store.selectSync(sql, input.profileId, input.syncTs, input.transferId, input.limit);
      const more = rows.length > input.limit;
      const page = rows.slice(0, input.limit);
      const body: Awaited<ReturnType<TransferQueries['sync']>> = {
        results: await listJson(sql, page),
        more,
        first_sync_ts: page.length > 0 ? page[0].sync_ts.toISOString() : null,
        last_sync_ts: page.length > 0 ? page[page.length - 1].sync_ts.toISOString() : null,
      };
      if (input.countRemain) {
        const last = page[page.length - 1];
        body.remain = last ? await store.countSync(sql, input.profileId, last.sync_ts, last.id) : 0;
      }
      return body;
    },

    async presend(input, transfers) {
      const resolved = await transfers.resolveRecipient(input.senderId, input.recipientUid, input.senderUid);
      if (!resolved.ok) return resolved;
      const recipient = resolved.recipient.profile;
      const serials = parseSerialNumbers(input.serialNumbers);
      if (!serials.ok) return sendFailure(serials.errors);
      const redeemed = await redeemedLoopsOf(sql, recipient);
      const summary = serials.value === null ? await ledgerStore.selectLoopSummary(sql, input.senderId) : summarize(await ledgerStore.selectNotes(sql, walletHolder(input.senderId), serials.value));
      const looks = await selectLoopLooks(sql, summary.filter((row) => row.loop_id !== openLoopId).map((row) => row.loop_id));
      const loops = summary
        .filter((row) => !(input.closedLoopOnly && row.loop_id === openLoopId))
        .map((row) => ({ row, accepted: accepts({ loopId: row.loop_id, issuerId: row.issuer_id } as never, recipient, redeemed) }))
        .sort((left, right) => specificity({ loopId: left.row.loop_id, issuerId: left.row.issuer_id } as never, recipient?.id ?? null) - specificity({ loopId: right.row.loop_id, issuerId: right.row.issuer_id } as never, recipient?.id ?? null))
        .map(({ row, accepted }) => ({
          loop_id: row.loop_id,
          currency: row.currency,
          issuer_id: row.issuer_id,
          title: row.loop_id === openLoopId ? row.currency : (looks.get(row.loop_id)?.title ?? `Brand cash ${row.loop_id}`),
          thumbnail: looks.get(row.loop_id)?.imageMediaId ? mediaUrlOf(core.config, looks.get(row.loop_id)!.imageMediaId!, 'thumbnail') : null,
          amount: formatMinor(row.amount, row.currency),
          max_sendable: formatMinor(row.amount, row.currency),
          missing_agreement: !accepted,
        }));
      const recipientInfo = recipient
        ? partyInfo(recipient, resolved.recipient.uid)
        : { title: '', screen_name: '', is_individual: true, uid_value: resolved.recipient.uid.slice(resolved.recipient.uid.indexOf(':') + 1), uid_type: resolved.recipient.uid.slice(0, resolved.recipient.uid.indexOf(':')), original: resolved.recipient.uid.slice(resolved.recipient.uid.indexOf(':') + 1) };
      return {
        ok: true,
        body: {
          must_accept_policy: recipient === null || recipient.isIndividual,
          loops,
          any_accepted: loops.every((loop) => !loop.missing_agreement),
          force_private: false,
          support_paycode: recipient?.supportPaycode ?? false,
          message_split: false,
          recipient_info: recipientInfo,
          sender_can_send_direct: true,
          recipient_can_send_direct: recipient ? true : null,
        },
      };
    },
  };
}
