// Who may see or change a design, one rule for every design call (GET /design/<id>'s): a profile's
// explicit grants, plus view_design on a published design; a design the profile may not view is
// "not found", never "forbidden". Changes run under the design's lock (onDesign, onEditableDesign);
// its brand cash is issued by the issuer or an active distributor (issueTerms).
import type { CommandRunner, Unit } from '../actors/command.ts';
import { type Decimal, type Money, positiveMoneyOf } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import { designFailure, invalid, type DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';
import * as store from './store.ts';
import type { DesignRow, PlanRow } from './store.ts';

export async function designPermissionsOf(db: Queryable, design: DesignRow, profileId: string): Promise<Set<string>> {
  const held = new Set(await store.selectGrants(db, design.id, profileId));
  if (design.published_at) held.add('view_design');
  return held;
}

/** The design when the profile may view it and holds the needed permission on it. */
export async function designFor(db: Queryable, profileId: string, designId: string, needed: string): Promise<{ design: DesignRow; held: Set<string> } | DesignFailure> {
  const design = /^\d{10}$/.test(designId) ? await store.selectDesign(db, designId) : null;
  if (!design || design.deleted_at) return designFailure('design_not_found');
  const held = await designPermissionsOf(db, design, profileId);
  if (!held.has('view_design')) return designFailure('design_not_found');
  if (!held.has(needed)) return designFailure('design_forbidden', { description: `This profile lacks ${needed} on the design.` });
  return { design, held };
}

/** Runs a change of one design under its lock, after checking the caller may make it. */
export function onDesign<T>(
  commands: CommandRunner, name: string, profileId: string, designId: string, needed: string, body: (unit: Unit<DesignFailure>, design: DesignRow) => Promise<T>,
): Promise<T | DesignFailure> {
  return commands.run(name, [{ kind: designKind.kind, id: designId }], async (unit: Unit<DesignFailure>) => {
    const found = await designFor(unit.tx, profileId, designId, needed);
    if ('error' in found) return unit.reject(found);
    const snapshot = await unit.load(designKind, designId);
    if (!snapshot || snapshot.value === 'deleted') return unit.reject(designFailure('design_not_found'));
    return body(unit, found.design);
  });
}

/** Runs a change of a design's media under the design's lock, after checking the profile holds edit_design on it. */
export function onEditableDesign<T>(commands: CommandRunner, name: string, profileId: string, designId: string, body: (unit: Unit<DesignFailure>, design: DesignRow) => Promise<T>): Promise<T | DesignFailure> {
  return commands.run(name, [{ kind: designKind.kind, id: designId }], async (unit: Unit<DesignFailure>) => {
    const found = await designFor(unit.tx, profileId, designId, 'edit_design');
    if ('error' in found) return unit.reject(found);
    return body(unit, found.design);
  });
}

export interface IssueTerms {
  design: DesignRow;
  plan: PlanRow;
  /** The brand cash to issue, in the design's currency. */
  money: Money;
}

/**
 * The checks before issuing a design's brand cash (a design send, a bill), in a fixed order: a
 * gl_design the caller may view, the caller's own check, the issuer or an active distributor, a
 * live plan, a positive amount. The refusals say what the call is.
 */
export async function issueTerms(
  db: Queryable, request: { callerId: string; designId: string; planId: string; amount: Decimal }, refusals: { notGl: string; forbidden: string },
  callersCheck: (design: DesignRow) => Promise<DesignFailure | null>,
): Promise<IssueTerms | DesignFailure> {
  const design = /^\d{10}$/.test(request.designId) ? await store.selectDesign(db, request.designId) : null;
  if (!design || design.deleted_at) return designFailure('design_not_found');
  if (!(await designPermissionsOf(db, design, request.callerId)).has('view_design')) return designFailure('design_not_found');
  if (design.design_type !== 'gl_design') return invalid('design_id', refusals.notGl);
  const refused = await callersCheck(design);
  if (refused) return refused;
  const roles = await store.activeAgreementRoles(db, design.id, request.callerId);
  if (design.issuer_id !== request.callerId && !roles.distributor) return designFailure('design_forbidden', { description: refusals.forbidden });
  const plan = /^\d{10}$/.test(request.planId) ? await store.selectPlan(db, design.id, request.planId) : null;
  if (!plan) return invalid('distribution_plan_id', 'is not a live plan of this design');
  const parsed = positiveMoneyOf(request.amount, design.currency);
  if (!parsed.ok) return invalid('amount', `must be a positive amount of ${design.currency} (${parsed.error})`);
  return { design, plan, money: parsed.value };
}
