// Distribution plans of a design: the recipients table that splits a sender's open loop payment
// (docs/brand-cash.md), created with default terms, changed and deleted under the design's lock.
import { onDesign } from './access.ts';
import type { DesignsContext } from './context.ts';
import { designFailure, invalid } from './errors.ts';
import * as store from './store.ts';
import type { PlanRecipient } from './store.ts';
import type { DesignCaller, DesignResult } from './types.ts';
import { freshDesignJson } from './views.ts';

type Json = Record<string, unknown>;

/** A plan's recipients table: each row's rules, and per loop at most 100 percent in all. */
export function planRecipientsProblem(recipients: readonly PlanRecipient[], designId: string, profileExists: (id: string) => boolean): string | null {
  const totals = new Map<string, number>();
  for (const [index, row] of recipients.entries()) {
    const at = `recipients.${index}`;
    if (!/^\d{1,3}(\.\d{1,4})?$/.test(row.percentage)) return `${at}.percentage must be a decimal string with at most 4 decimals`;
    const hundredths = Math.round(Number(row.percentage) * 10_000);
    if (hundredths <= 0 || hundredths > 1_000_000) return `${at}.percentage must be more than 0 and at most 100`;
    if (row.loop_id !== '0' && row.loop_id !== designId) return `${at}.loop_id must be 0 (before redemption) or the design id (after redemption)`;
    if (row.recipient_type === 'discount' && row.loop_id !== '0') return `${at}: a discount applies before redemption (loop_id 0)`;
    if (row.recipient_type === 'redeemer' && row.loop_id !== designId) return `${at}: the redeemer is paid after redemption (loop_id is the design id)`;
    if (row.recipient_type === 'static' ? !profileExists(row.recipient_id) : row.recipient_id !== '0') {
      return row.recipient_type === 'static' ? `${at}.recipient_id must be a profile id` : `${at}.recipient_id must be 0 for ${row.recipient_type}`;
    }
    totals.set(row.loop_id, (totals.get(row.loop_id) ?? 0) + hundredths);
  }
  // The sender's payment covers the discount, the fees and the reserve for after-redemption rows
  // (docs/brand-cash.md), so all rows together stay within 100 percent of the face value.
  const total = [...totals.values()].reduce((sum, value) => sum + value, 0);
  if (total > 1_000_000) return 'the percentages of all rows add up to more than 100';
  return null;
}

export async function createPlan(ctx: DesignsContext, caller: DesignCaller, designId: string, title: string): Promise<DesignResult<{ planId: string }>> {
  return onDesign(ctx.commands, 'design.plan_create', caller.profileId, designId, 'edit_design', async (unit) => {
    const planId = await unit.newShortId('plan');
    // Default terms: the redeemer gets open loop settlement equal to the brand cash it receives.
    const recipients: PlanRecipient[] = [{ percentage: '100', loop_id: designId, recipient_type: 'redeemer', recipient_id: '0' }];
    await store.insertPlan(unit.tx, { id: planId, designId, title: title.trim(), recipients }, unit.now);
    return { ok: true as const, planId };
  });
}

/** The profile ids among the recipients' static rows that name existing profiles. */
async function knownProfiles(ctx: DesignsContext, recipients: readonly PlanRecipient[]): Promise<Set<string>> {
  const statics = recipients.filter((row) => row.recipient_type === 'static' && /^\d{10}$/.test(row.recipient_id)).map((row) => row.recipient_id);
  return new Set((await Promise.all(statics.map(async (id) => ((await ctx.profiles.get(ctx.sql, id)) ? id : null)))).filter((id): id is string => id !== null));
}

export async function patchPlan(
  ctx: DesignsContext, caller: DesignCaller, designId: string, planId: string, changes: { title?: string; recipients?: PlanRecipient[] },
): Promise<DesignResult<{ design: Json }>> {
  if (changes.recipients) {
    const known = await knownProfiles(ctx, changes.recipients);
    const problem = planRecipientsProblem(changes.recipients, designId, (id) => known.has(id));
    if (problem) return invalid('recipients', problem);
  }
  const result = await onDesign(ctx.commands, 'design.plan_patch', caller.profileId, designId, 'edit_design', async (unit) => {
    if (!(await store.selectPlan(unit.tx, designId, planId))) return unit.reject(designFailure('plan_not_found'));
    await store.updatePlan(unit.tx, planId, { title: changes.title?.trim(), recipients: changes.recipients }, unit.now);
    return { ok: true as const };
  });
  if ('error' in result) return result;
  return { ok: true, design: await freshDesignJson(ctx, caller, designId) };
}

export async function deletePlan(ctx: DesignsContext, caller: DesignCaller, designId: string, planId: string): Promise<DesignResult<{ design: Json }>> {
  const result = await onDesign(ctx.commands, 'design.plan_delete', caller.profileId, designId, 'edit_design', async (unit) => {
    if (!(await store.markPlanDeleted(unit.tx, designId, planId, unit.now))) return unit.reject(designFailure('plan_not_found'));
    return { ok: true as const };
  });
  if ('error' in result) return result;
  return { ok: true, design: await freshDesignJson(ctx, caller, designId) };
}
