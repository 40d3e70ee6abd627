// What other domains ask of designs: a design and its plans, a profile's grants and agreement
// roles on it, the designs a profile redeems, and how brand cash loops look. The SQL is store.ts,
// this domain's alone.
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';
import type { DesignRow, PlanRow } from './types.ts';

/** The design, live or deleted; null when there is none. */
export function designById(db: Queryable, designId: string): Promise<DesignRow | null> {
  return store.selectDesign(db, designId);
}

/** A live (not deleted) plan of the design. */
export function livePlanOf(db: Queryable, designId: string, planId: string): Promise<PlanRow | null> {
  return store.selectPlan(db, designId, planId);
}

/** A plan by id, deleted or not: cash settles under the plan it was distributed under. */
export function planById(db: Queryable, planId: string): Promise<PlanRow | null> {
  return store.selectPlanAnyState(db, planId);
}

/** The permissions the profile was explicitly granted on the design. */
export function grantsOn(db: Queryable, designId: string, profileId: string): Promise<string[]> {
  return store.selectGrants(db, designId, profileId);
}

/** The roles the profile holds on the design through active agreements. */
export function agreementRolesOf(db: Queryable, designId: string, profileId: string): Promise<{ redeemer: boolean; distributor: boolean; settler: boolean }> {
  return store.activeAgreementRoles(db, designId, profileId);
}

/** The designs whose brand cash the profile redeems through an active redeemer agreement. */
export function designsRedeemedBy(db: Queryable, profileId: string): Promise<string[]> {
  return store.selectRedeemedDesignIds(db, profileId);
}

/** Brand cash loops' titles and image media ids, by design id, for loop descriptions. */
export function loopLooks(db: Queryable, designIds: readonly string[]): Promise<Map<string, { title: string; imageMediaId: string | null }>> {
  return store.selectLoopLooks(db, designIds);
}
