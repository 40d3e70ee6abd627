// The rungs a movement may turn off, and why, from a closed set defined once (issue 38: one ladder,
// literally). A path states what its movement is (its MovementKind) and, for a rung it does not
// climb, one of that rung's reasons below (Off<'holding'> takes only a holding reason, so tsc
// refuses prose); each reason lists the kinds of movement for which it is sound, and the gate
// (passGate, ./gate.ts) throws, as a programming error, on a reason unsound for the movement's kind.
// test/edges.test.ts refuses an `off:` in engine/ whose text is not a reason declared here.
// A leaf module: gate.ts, the paths and the edges test import it; it imports nothing.

/**
 * What a movement is, from a closed set: the gate derives from it which wallets' states it reads,
 * and which reasons may turn its rungs off.
 *   payment: a party pays from its wallet (a send, a pull, a settlement, a trade's leg, a payout,
 *     a plan's leg, a payment code's correction): the paying wallet is active, the receiving one not closed;
 *   release: cash a waiting transfer holds reaches its recipient (a payment code, an invitation, a
 *     trade's offered leg, a skipped wait): the receiving wallet is not closed;
 *   issue: new cash into a wallet (issuance, a deposit, brand cash under a plan): the wallet is not closed;
 *   sink: cash leaves circulation (redemption, expiry, a payout's deposit): no wallet decides;
 *   debt: what is owed already is paid (a reserve's release, a payout's fee): no wallet's state holds it back;
 *   escrow_return: a waiting transfer's cash back to its sender, whatever the wallet's state;
 *   record: a transfer is recorded and nothing moves (a bill, an offer's accept).
 */
export type MovementKind = 'payment' | 'release' | 'issue' | 'sink' | 'debt' | 'escrow_return' | 'record';

/** The rungs a path may turn off: the Movement's fields, and a Move's lines. Rung 0 (balances) is never off: the gate knows what each transaction locked (gate.ts balancesRung). */
export type Rung = 'authority' | 'dedup' | 'holding' | 'transfer' | 'move' | 'lines';

/** Each rung's reasons, each with the kinds of movement for which it is sound. */
export const offReasons = {
  authority: {
    /** The path refused a closed-loop token before its command, on what its movement will move (a design send, a plan's legs and issue, a bill, a settlement). */
    checked_before_command: ['payment', 'issue', 'record'],
    /** No caller's token moves this cash: the sweeper, the operator, the rail's deposit, the design's reserve. */
    no_caller: ['issue', 'sink', 'debt'],
    /** The sender's own cash, moved under the authority it sent with: escrow released or returned, a payment code's correction, a payout settled. */
    sender_own_cash: ['payment', 'release', 'escrow_return', 'sink', 'debt'],
    /** Brand cash leaving circulation at a redeemer by agreement: no open loop cash moves. */
    brand_cash_only: ['sink'],
    /** The record of a movement whose legs each climb the gate themselves (an offer accept). */
    legs_climb_it: ['record'],
    /** Nothing moves. */
    nothing_moves: ['record'],
  },
  dedup: {
    /** The request gave no dedup_id (written `dedup ?? { off: 'no_dedup_id' }`). */
    no_dedup_id: ['payment', 'record'],
    /** The movement ends a transfer that ends once: its machine refuses a second end, accept or skip; a payout settles once; a settlement's pending rows are taken under its lock. */
    ends_once: ['payment', 'release', 'escrow_return', 'sink', 'debt', 'record'],
    /** No request to repeat: the sweeper's expiry, an operator's grant. */
    no_request: ['issue', 'sink'],
    /** The path keeps its own key, claimed in this command: an acceptance row, a fund-proxy trace number, the payment code itself. */
    own_key_store: ['payment', 'release', 'issue', 'record'],
    /** Nothing moves: a repeat records another transfer that moved nothing (a failed accept). */
    nothing_moves: ['record'],
  },
  holding: {
    /** Open loop cash only: the holding rules are brand cash rules. */
    open_loop: ['payment', 'issue', 'debt'],
    /** The cash leaves circulation: no holder receives it. */
    leaves_circulation: ['sink'],
    /** The brand cash is issued by the path's distribution, whose issue climbs the holding rungs (before and after). */
    held_by_issue: ['payment', 'record'],
    /** Into escrow: the holding rules are climbed when the escrow is released to its recipient. */
    into_escrow: ['payment'],
    /** The sender's own cash comes home from escrow. */
    sender_own_cash: ['escrow_return'],
    /** A refund: the recipient gives the sender's own cash back (a payment code's correction). */
    refund: ['payment'],
    /** Nothing moves. */
    nothing_moves: ['record'],
    /** The recipient has no profile whose holding rules could apply. */
    no_recipient_profile: ['payment', 'release'],
  },
  transfer: {
    /** The path recorded the transfer already: at its start, by its send, or with an earlier leg. */
    recorded_by_path: ['payment', 'release', 'issue', 'sink', 'debt', 'escrow_return'],
  },
  move: {
    /** Nothing moves: the transfer is only recorded. */
    nothing_moves: ['record'],
    /** The path moves the cash itself after the gate, each hop through the gate (a design send's and an offer accept's distribution). */
    moved_by_path: ['payment', 'record'],
  },
  lines: {
    /** Into escrow: the movement is recorded when the escrow is released. */
    escrow_in: ['payment'],
    /** Escrow back to its sender: the cash never left its sender, so no movement is recorded. */
    escrow_return: ['escrow_return'],
  },
} as const satisfies { readonly [R in Rung]: Readonly<Record<string, readonly MovementKind[]>> };

/** A reason the rung may be turned off for. */
export type OffReason<R extends Rung> = R extends Rung ? keyof (typeof offReasons)[R] & string : never;

/** A rung the movement does not climb, and why (one of the rung's declared reasons). */
export type Off<R extends Rung = Rung> = R extends Rung ? { off: OffReason<R> } : never;

/** Per rung, each reason's sound kinds as a set: one map lookup and one set lookup per rung turned off. */
const soundKinds: { readonly [R in Rung]: ReadonlyMap<string, ReadonlySet<MovementKind>> } = {
  authority: kindSets(offReasons.authority),
  dedup: kindSets(offReasons.dedup),
  holding: kindSets(offReasons.holding),
  transfer: kindSets(offReasons.transfer),
  move: kindSets(offReasons.move),
  lines: kindSets(offReasons.lines),
};

function kindSets(reasons: Readonly<Record<string, readonly MovementKind[]>>): ReadonlyMap<string, ReadonlySet<MovementKind>> {
  return new Map(Object.entries(reasons).map(([reason, kinds]) => [reason, new Set(kinds)]));
}

/** Whether `reason` turns `rung` off soundly for a movement of `kind`. */
export function offSound(kind: MovementKind, rung: Rung, reason: string): boolean {
  return soundKinds[rung].get(reason)?.has(kind) === true;
}

/** Throws unless `reason` turns `rung` off soundly for a movement of `kind`: a path that says otherwise is a programming error. */
export function assertOffSound(kind: MovementKind, rung: Rung, reason: string): void {
  if (!offSound(kind, rung, reason)) throw new Error(`a movement of kind ${kind} may not turn off its ${rung} rung for '${reason}'`);
}
