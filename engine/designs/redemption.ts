// Redemption: brand cash that reaches a redeemer (a profile with an active redeemer agreement,
// other than the design's issuer) leaves circulation in the same command, and the reserve that
// backed it settles at once per the plan it was distributed under: after-redemption static rows
// get their share, the redeemer the rest. Unfunded brand cash (reserve 0) settles nothing here;
// settlement by a settler is the point-of-sale work (docs/brand-cash.md).
import type { Unit } from '../actors/command.ts';
import type { Pick } from '../ledger/allocation.ts';
import { walletHolder } from '../ledger/cash.ts';
import * as ledgerStore from '../ledger/store.ts';
import { redeemOnArrivalNotesMax } from '../limits.ts';
import { releaseReserve, percentagePpm } from './reserve.ts';
import * as store from './store.ts';

interface ArrivedNote {
  serial: bigint;
  loop_id: string;
  currency: string;
  issuer_id: string;
  amount: bigint;
  reserve: bigint;
  plan_id: string | null;
}

/** Redeems the redeemer's brand cash of the given designs; returns the next free movement number. */
export async function redeemArrivedIn(unit: Unit, input: { transferId: string; redeemerId: string; designIds: readonly string[]; number: number }): Promise<number> {
  const notes = await unit.tx<ArrivedNote[]>`
    select serial, loop_id, currency, issuer_id, amount, reserve, plan_id from notes
    where holder_kind = 'wallet' and holder_id = ${input.redeemerId} and loop_id = any(${[...input.designIds]}::text[])
    order by serial limit ${redeemOnArrivalNotesMax} for update`;
  if (notes.length === 0) return input.number;
  let number = input.number;
  const byDesign = new Map<string, ArrivedNote[]>();
  for (const note of notes) byDesign.set(note.loop_id, [...(byDesign.get(note.loop_id) ?? []), note]);
  for (const [designId, designNotes] of byDesign) {
    const currency = designNotes[0].currency;
    const issuerId = designNotes[0].issuer_id;
    const amount = designNotes.reduce((total, note) => total + note.amount, 0n);
    const picks: Pick[] = designNotes.map((note) => ({ serial: note.serial, loopId: designId, currency, issuerId, amount: note.amount, whole: true }));
    await ledgerStore.moveNotes(unit.tx, walletHolder(input.redeemerId), { kind: 'redeemed', id: input.transferId }, picks, unit.now, {
      transferId: input.transferId, lines: [{ number, action: 'redeem', fromId: input.redeemerId, toId: issuerId, loopId: designId, currency, issuerId, amount }],
    });
    await ledgerStore.addRedeemed(unit.tx, designId, currency, amount);
    number += 1;
    // Settlement per plan: the reserve of the redeemed notes, split over the plan's after rows.
    const byPlan = new Map<string, bigint>();
    for (const note of designNotes) if (note.reserve > 0n) byPlan.set(note.plan_id ?? '', (byPlan.get(note.plan_id ?? '') ?? 0n) + note.reserve);
    for (const [planId, reserve] of byPlan) {
      const plan = planId ? await store.selectPlanAnyState(unit.tx, planId) : null;
      const after = (plan?.recipients ?? []).filter((row) => row.loop_id === designId);
      const afterPpm = after.reduce((total, row) => total + percentagePpm(row.percentage), 0n);
      let paid = 0n;
      for (const row of after) {
        if (row.recipient_type !== 'static' || afterPpm === 0n) continue;
        const share = (reserve * percentagePpm(row.percentage)) / afterPpm;
        if (share === 0n) continue;
        await releaseReserve(unit, designId, currency, share, row.recipient_id, { transferId: input.transferId, number, action: 'settle' });
        paid += share;
        number += 1;
      }
      if (reserve - paid > 0n) {
        await releaseReserve(unit, designId, currency, reserve - paid, input.redeemerId, { transferId: input.transferId, number, action: 'settle' });
        number += 1;
      }
    }
  }
  return number;
}
