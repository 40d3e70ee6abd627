// Whether a recipient accepts a piece of cash: open loop always, brand cash by who the recipient
// is and the designs it redeems by agreement. Shared by sends, presend, trades and POS.
import type { Queryable } from '../storage/database.ts';
import { openLoopId, type Note, type Pick } from '../ledger/allocation.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { designsRedeemedBy } from '../designs/queries.ts';

const noLoops: ReadonlySet<string> = new Set();

/**
 * Whether the recipient accepts this cash: open loop always; brand cash when the recipient is a
 * person, its issuer, or holds an active redeemer agreement for its design (`redeemed`).
 */
export function accepts(note: Pick | Note, recipient: ProfileRecord | null, redeemed: ReadonlySet<string> = noLoops): boolean {
  if (note.loopId === openLoopId) return true;
  if (recipient === null) return true;
  return recipient.isIndividual || note.issuerId === recipient.id || redeemed.has(note.loopId);
}

/** The designs a business recipient redeems by agreement (none for people and unknown recipients). */
export async function redeemedLoopsOf(db: Queryable, recipient: ProfileRecord | null): Promise<ReadonlySet<string>> {
  if (!recipient || recipient.isIndividual) return noLoops;
  return new Set(await designsRedeemedBy(db, recipient.id));
}
