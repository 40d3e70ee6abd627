// Reads of transfers: the TransferQueries interface, its factory, and presend (what a sender could
// send a recipient). TransferDetail, history and history_sync live in reads.ts.
import type { Core } from '../core.ts';
import { openLoopId, parseSerialNumbers, specificity, summarizeByLoop } from '../ledger/allocation.ts';
import { heldNotesOf } from '../ledger/cash.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import { loopSummaryOf } from '../ledger/reads.ts';
import { formatMinor } from '../money.ts';
import type { ProfileRecord, ProfilesService } from '../profiles/service.ts';
import type { TransfersService } from './service.ts';
import { loopLooks } from '../designs/queries.ts';
import { mediaUrlOf } from '../designs/images.ts';
import { accepts, redeemedLoopsOf } from './acceptance.ts';
import { createPaycodeSecrets } from './paycode-secrets.ts';
import { detail, history, summary, sync } from './reads.ts';
import type { PartyInfo } from './views.ts';
import type { TransferQueries, QueriesContext } from './query-types.ts';
export type { TransferQueries } from './query-types.ts';

export function createTransferQueries(core: Core, profiles: ProfilesService): TransferQueries {
  const ctx: QueriesContext = { core, profiles, paycodeSecrets: createPaycodeSecrets(core) };
  return {
    partyInfo,
    detail: (viewerId, transferId, db) => detail(ctx, viewerId, transferId, db),
    summary: (transferId) => summary(ctx, transferId),
    history: (input) => history(ctx, input),
    sync: (input) => sync(ctx, input),
    presend: (input, transfers) => presend(ctx, input, transfers),
  };
}

/** A party with a profile as presend shows it, under the UID the sender named (its service UID by default). */
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

async function presend(
  ctx: QueriesContext, input: { senderId: string; recipientUid: string; senderUid?: string; serialNumbers?: string; closedLoopOnly?: boolean }, transfers: TransfersService,
): Promise<{ ok: true; body: Record<string, unknown> } | Failure> {
  const { sql, config } = ctx.core;
  const resolved = await transfers.resolveRecipient(input.senderId, input.recipientUid, input.senderUid);
  if (!resolved.ok) return resolved;
  const recipient = resolved.recipient.profile;
  const serials = parseSerialNumbers(input.serialNumbers);
  if (!serials.ok) return sendFailure(serials.errors);
  const redeemed = await redeemedLoopsOf(sql, recipient);
  const summary = serials.value === null ? await loopSummaryOf(sql, input.senderId) : summarizeByLoop(await heldNotesOf(sql, input.senderId, serials.value));
  const looks = await loopLooks(sql, summary.filter((row) => row.loop_id !== openLoopId).map((row) => row.loop_id));
  const loops = summary
    .filter((row) => !(input.closedLoopOnly && row.loop_id === openLoopId))
    .map((row) => ({ row, accepted: accepts({ loopId: row.loop_id, issuerId: row.issuer_id } as never, recipient, redeemed) }))
    .sort((left, right) => specificity({ loopId: left.row.loop_id, issuerId: left.row.issuer_id } as never, recipient?.id ?? null) - specificity({ loopId: right.row.loop_id, issuerId: right.row.issuer_id } as never, recipient?.id ?? null))
    .map(({ row, accepted }) => ({
      loop_id: row.loop_id,
      currency: row.currency,
      issuer_id: row.issuer_id,
      title: row.loop_id === openLoopId ? row.currency : (looks.get(row.loop_id)?.title ?? `Brand cash ${row.loop_id}`),
      thumbnail: looks.get(row.loop_id)?.imageMediaId ? mediaUrlOf(config, looks.get(row.loop_id)!.imageMediaId!, 'thumbnail') : null,
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
}
