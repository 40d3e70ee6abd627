// Who may see or change a design, for the design calls that live outside service.ts (images and
// icons): the same rule as GET /design/<id>. A profile's explicit grants, plus view_design on a
// published design; a design the profile may not view is "not found", never "forbidden".
import type { Queryable } from '../storage/database.ts';
import { designFailure, type DesignFailure } from './errors.ts';
import * as store from './store.ts';
import type { DesignRow } from './store.ts';

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
