// Durable timers of transfers: paycode, invitation and trade expiry cancel and release the escrow;
// the end of an exchange hold starts the payout. Timers of other domains go to their handlers.
import type { TransfersContext } from './context.ts';
import { applyIn, cancelIn, findIn } from './changes.ts';
import type { TransferEvent } from './machine.ts';

export function registerTransferTimers(ctx: TransfersContext): void {
  ctx.core.sweeper.register('transfer', async (unit, timer) => {
    const extra = ctx.timerHandlers.get(timer.name);
    if (extra) return extra(unit, timer.actorId, timer.event as TransferEvent);
    // A timer is written with its transfer, so a missing one is a fault (logged, retried), not a refusal.
    const found = await findIn(unit, timer.actorId);
    if (!found) throw new Error(`transfer ${timer.actorId} of timer ${timer.name} is missing`);
    const { row } = found;
    if (timer.name === 'paycode_expire' || timer.name === 'invite_expire' || timer.name === 'trade_expire') {
      await cancelIn(unit, row.id, row.sender_id!, timer.event as TransferEvent);
      return;
    }
    if (timer.name === 'hold_end') {
      if (await applyIn(unit, row.id, timer.event as TransferEvent)) unit.emit('payout.send', { transferId: row.id });
      return;
    }
    throw new Error(`unknown transfer timer ${timer.name}`);
  });
}
