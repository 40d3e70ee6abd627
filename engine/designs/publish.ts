// The contract the ledger calls when notes of a design are first issued: the design becomes
// published (viewable by everyone, no longer deletable) in the issuing command's transaction.
import type { Unit } from '../actors/command.ts';
import { designKind } from './machine.ts';
import { scheduleReminder } from './reminders.ts';
import * as store from './store.ts';

export async function publishDesignIn(unit: Unit, designId: string): Promise<void> {
  const snapshot = await unit.load(designKind, designId);
  if (!snapshot) throw new Error(`design ${designId} has no actor`);
  if (snapshot.value !== 'unpublished') return;
  unit.send(designKind, designId, { type: 'design.publish', at: unit.now.toISOString() });
  await store.markPublished(unit.tx, designId, unit.now);
  // From publication on, the design's holders get remind-brand-cash messages (engine/designs/reminders.ts).
  scheduleReminder(unit, designId);
}
