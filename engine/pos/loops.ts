// What a sender can pay a recipient with: the sender's brand cash summed per loop (all of it, or the
// named serial numbers), most specific first, each marked with whether the recipient accepts it.
import { loopLooks } from '../designs/queries.ts';
import { mediaUrlOf } from '../designs/images.ts';
import { openLoopId, parseSerialNumbers, specificity, summarizeByLoop } from '../ledger/allocation.ts';
import { heldNotesOf } from '../ledger/cash.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';
import { loopSummaryOf } from '../ledger/reads.ts';
import { formatMinor } from '../money.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { accepts, redeemedLoopsOf } from '../transfers/service.ts';
import type { PosContext } from './context.ts';
import type { PosFailure } from './errors.ts';

export type LoopsResult = { ok: true; body: { loops: Record<string, unknown>[]; sender_info: Record<string, unknown>; recipient_info: Record<string, unknown> } } | Failure | PosFailure;

/** The sender's brand cash, summed per loop, that the recipient accepts (or all, flagged). */
export async function loopsFor(ctx: PosContext, sender: ProfileRecord, recipient: ProfileRecord, serialNumbers: string | undefined, onlyAccepted: boolean): Promise<LoopsResult> {
  const { sql, config } = ctx.core;
  const serials = parseSerialNumbers(serialNumbers);
  if (!serials.ok) return sendFailure(serials.errors);
  const redeemed = await redeemedLoopsOf(sql, recipient);
  const notes = serials.value === null
    ? await loopSummaryOf(sql, sender.id)
    : summarizeByLoop(await heldNotesOf(sql, sender.id, serials.value));
  const brand = notes.filter((row) => row.loop_id !== openLoopId);
  const looks = await loopLooks(sql, brand.map((row) => row.loop_id));
  const loops = brand
    .map((row) => ({ row, accepted: accepts({ loopId: row.loop_id, issuerId: row.issuer_id } as never, recipient, redeemed) }))
    .filter((entry) => entry.accepted || !onlyAccepted)
    .sort((left, right) => specificity({ loopId: left.row.loop_id, issuerId: left.row.issuer_id } as never, recipient.id) - specificity({ loopId: right.row.loop_id, issuerId: right.row.issuer_id } as never, recipient.id))
    .map(({ row, accepted }) => ({
      loop_id: row.loop_id, currency: row.currency, issuer_id: row.issuer_id, title: looks.get(row.loop_id)?.title ?? `Brand cash ${row.loop_id}`,
      thumbnail: looks.get(row.loop_id)?.imageMediaId ? mediaUrlOf(config, looks.get(row.loop_id)!.imageMediaId!, 'thumbnail') : null,
      amount: formatMinor(row.amount, row.currency), max_sendable: formatMinor(row.amount, row.currency), missing_agreement: !accepted,
    }));
  return { ok: true, body: { loops, sender_info: { ...ctx.queries.partyInfo(sender) }, recipient_info: { ...ctx.queries.partyInfo(recipient) } } };
}

