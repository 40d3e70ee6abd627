// remind-brand-cash: once a day (a durable timer per published design, delivered by the sweeper)
// the design's holders are reminded of their holdings when the day matches the design's email_freq
// (daily; weekly on Mondays; weekly2 on Mondays and Thursdays; monthly on the 1st), and every day
// during the last 7 days before some of their cash expires, whatever email_freq says.
import type { Unit } from '../actors/command.ts';
import { holdersOf } from '../ledger/reads.ts';
import { brandCashExpiryWarningDays, brandCashReminderHoldersMax, dayMs } from '../limits.ts';
import type { MessagesService } from '../messages/service.ts';
import { brandCashReminder } from '../messages/templates.ts';
import { formatMinor } from '../money.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { designKind } from './machine.ts';
import * as store from './store.ts';


/** Whether a reminder is due on this UTC day under the frequency. */
export function frequencyDue(frequency: string | null, day: Date): boolean {
  const weekday = day.getUTCDay();
  if (frequency === 'daily') return true;
  if (frequency === 'weekly') return weekday === 1;
  if (frequency === 'weekly2') return weekday === 1 || weekday === 4;
  if (frequency === 'monthly') return day.getUTCDate() === 1;
  return false;
}

/** The next reminder moment: the start of the next UTC day. */
export function nextReminderAt(now: Date): Date {
  return new Date(Math.floor(now.getTime() / dayMs) * dayMs + dayMs);
}

export function scheduleReminder(unit: Unit, designId: string): void {
  const dueAt = nextReminderAt(unit.now);
  unit.schedule(designKind, designId, 'remind', dueAt, { type: 'design.remind_due', at: dueAt.toISOString() });
}

export async function remindHoldersIn(unit: Unit, designId: string, dependencies: { profiles: ProfilesService; messages: MessagesService }): Promise<number> {
  const design = await store.selectDesign(unit.tx, designId);
  if (!design || design.deleted_at) return 0;
  const everyone = frequencyDue(design.email_freq, unit.now);
  const warnBefore = new Date(unit.now.getTime() + brandCashExpiryWarningDays * dayMs);
  let sent = 0;
  for (const holder of await holdersOf(unit.tx, designId, brandCashReminderHoldersMax)) {
    const lastWeek = holder.soonest_expiry !== null && holder.soonest_expiry <= warnBefore;
    if (!everyone && !lastWeek) continue;
    const email = (await dependencies.profiles.confirmedUids(unit.tx, holder.holder_id)).find((uid) => uid.startsWith('email:'));
    if (!email) continue;
    const content = brandCashReminder({
      designTitle: design.title, amount: formatMinor(holder.amount, holder.currency), currency: holder.currency, expiresAt: holder.soonest_expiry?.toISOString() ?? null, lastWeek,
    });
    dependencies.messages.queue(unit, { channel: 'email', to: email.slice('email:'.length), template: 'remind-brand-cash', ...content });
    sent += 1;
  }
  scheduleReminder(unit, designId);
  return sent;
}
