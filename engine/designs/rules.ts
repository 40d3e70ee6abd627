// The holding rules of brand cash on every send between wallets: `transferable: false` keeps
// holders from passing a design's cash to other individuals (its issuer may still send it, and
// returns and redemptions go to businesses), and `max_per_wallet` caps what one wallet may hold.
// Redeemers and the issuer are exempt from the cap: cash reaching them leaves circulation or
// returns home. What a wallet holds, for the cap, includes its own cash waiting in escrow (a payment
// code, a trade, a send to an address): that cash returns to it without asking the cap.
import type { Pick } from '../ledger/allocation.ts';
import { openLoopId } from '../ledger/allocation.ts';
import type { SendError } from '../ledger/errors.ts';
import { heldForCap } from '../ledger/holdings.ts';
import { formatMinor } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';

export interface RulesRecipient {
  id: string | null;
  isIndividual: boolean;
}

/** `credited`: the picks already sit in the recipient's balance (checked after a release from escrow). */
export async function holdingRulesProblem(
  db: Queryable, picks: readonly Pick[], senderId: string, recipient: RulesRecipient, redeemed: ReadonlySet<string>, credited = false,
): Promise<SendError | null> {
  const amounts = new Map<string, bigint>();
  for (const pick of picks) if (pick.loopId !== openLoopId) amounts.set(pick.loopId, (amounts.get(pick.loopId) ?? 0n) + pick.money.minor);
  if (amounts.size === 0) return null;
  for (const rules of await store.selectRules(db, [...amounts.keys()])) {
    if (!rules.transferable && recipient.isIndividual && senderId !== rules.issuer_id) {
      return { code: 'not_transferable', field_name: 'amounts', info: { loop_id: rules.id, reason: 'this brand cash cannot be passed to other people' } };
    }
    if (rules.max_per_wallet === null || recipient.id === null || recipient.id === rules.issuer_id || redeemed.has(rules.id)) continue;
    const currency = picks.find((pick) => pick.loopId === rules.id)!.money.currency;
    // Its own cash waiting in escrow counts: it comes back when not taken, and lands whatever the cap.
    const held = await heldForCap(db, recipient.id, rules.id, currency);
    if ((credited ? held : held + amounts.get(rules.id)!) > rules.max_per_wallet) {
      return { code: 'max_per_wallet', field_name: 'amounts', info: { loop_id: rules.id, max_per_wallet: formatMinor(rules.max_per_wallet, currency), reason: 'the recipient would hold more of this brand cash than a wallet may' } };
    }
  }
  return null;
}
