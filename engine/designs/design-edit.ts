// Creating, changing and deleting a design: each one command on the design's actor, the caller
// holding edit_design (manage_design to delete); a design's creator gets every permission on it.
import { positiveMoneyOf } from '../money.ts';
import { sanitizeDescription } from '../profiles/names.ts';
import type { Queryable } from '../storage/database.ts';
import { onDesign } from './access.ts';
import type { DesignsContext } from './context.ts';
import { designFailure, invalid, type DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';
import * as store from './store.ts';
import type { DesignChanges, DesignRow } from './store.ts';
import { designPermissions, type DesignCaller, type DesignPatch, type DesignResult, type DesignType } from './types.ts';
import { freshDesignJson } from './views.ts';

type Json = Record<string, unknown>;

/** The profile feature each design type needs; overlay designs need none. */
const typeFeatures: Record<DesignType, string | null> = { gl_design: 'design_gl', open_design: 'issue_open_loop', overlay_design: null };

export async function createDesign(ctx: DesignsContext, caller: DesignCaller, input: { title: string; currency: string; designType: DesignType }): Promise<DesignResult<{ design: Json }>> {
  const feature = typeFeatures[input.designType];
  if (feature && !(await ctx.profiles.hasFeature(ctx.sql, caller.profileId, feature))) {
    const added = `cashloop profile feature add ${caller.profileId} ${feature}`;
    return designFailure('feature_required', { description: `A ${input.designType} needs the ${feature} feature on profile ${caller.profileId}; the operator adds it with \`${added}\`.` });
  }
  const designId = await ctx.commands.run('design.create', [], async (unit) => {
    const id = await unit.newShortId('design');
    unit.create(designKind, id, { issuerId: caller.profileId, createdAt: unit.now.toISOString() });
    await store.insertDesign(unit.tx, { id, issuerId: caller.profileId, designType: input.designType, title: input.title.trim(), currency: input.currency }, unit.now);
    await store.insertGrants(unit.tx, id, caller.profileId, designPermissions, unit.now);
    return id;
  });
  return { ok: true, design: await freshDesignJson(ctx, caller, designId) };
}

/** max_per_wallet, designer_id and featured_id of a PATCH: amounts of the design's currency, profile ids. */
async function limitChanges(ctx: DesignsContext, db: Queryable, design: DesignRow, patch: DesignPatch, changes: DesignChanges): Promise<DesignFailure | null> {
  if (patch.max_per_wallet !== undefined) {
    if (patch.max_per_wallet === null) changes.max_per_wallet = null;
    else {
      const parsed = positiveMoneyOf(patch.max_per_wallet, design.currency);
      if (!parsed.ok) return invalid('max_per_wallet', `must be a positive amount of ${design.currency} (${parsed.error})`);
      changes.max_per_wallet = parsed.value.minor;
    }
  }
  for (const field of ['designer_id', 'featured_id'] as const) {
    const value = patch[field];
    if (value === undefined) continue;
    if (value === null || value === '') changes[field] = null;
    else if (!/^\d{10}$/.test(value) || !(await ctx.profiles.get(db, value))) return invalid(field, 'must be a profile id');
    else changes[field] = value;
  }
  return null;
}

/** The expire rule of a PATCH: none, an absolute time, or a number of days after issue. */
function expireChanges(expire: NonNullable<DesignPatch['expire']>, changes: DesignChanges, now: Date): DesignFailure | null {
  const { mode, absolute, relative } = expire;
  if (mode === null) Object.assign(changes, { expire_mode: null, expire_absolute: null, expire_relative_days: null });
  else if (mode === 'absolute') {
    const when = absolute ? new Date(absolute) : null;
    if (!when || Number.isNaN(when.getTime())) return invalid('expire.absolute', 'is required for mode absolute (ISO 8601)');
    // Cash issued under a past expiry would expire as it lands, its reserve going to the issuer.
    if (when.getTime() <= now.getTime()) return designFailure('expiry_in_past', { invalid: { 'expire.absolute': 'must be in the future' } });
    Object.assign(changes, { expire_mode: 'absolute', expire_absolute: when, expire_relative_days: null });
  } else {
    if (!relative) return invalid('expire.relative', 'is required for mode relative (days)');
    Object.assign(changes, { expire_mode: 'relative', expire_absolute: null, expire_relative_days: relative });
  }
  return null;
}

/** Turns a PATCH into column changes, checking each field against the design. */
async function changesOf(ctx: DesignsContext, db: Queryable, design: DesignRow, patch: DesignPatch, now: Date): Promise<DesignChanges | DesignFailure> {
  const changes: DesignChanges = {};
  if (patch.title !== undefined) changes.title = patch.title.trim();
  if (patch.description_html !== undefined) changes.description_html = patch.description_html ? sanitizeDescription(patch.description_html) : '';
  for (const flag of ['multiple_images', 'waves', 'transferable', 'generic_provider'] as const) if (patch[flag] !== undefined) changes[flag] = patch[flag];
  const limits = await limitChanges(ctx, db, design, patch, changes);
  if (limits) return limits;
  const expire = patch.expire !== undefined ? expireChanges(patch.expire, changes, now) : null;
  if (expire) return expire;
  if (patch.email_freq !== undefined) changes.email_freq = patch.email_freq;
  if (patch.icon !== undefined) {
    if (patch.icon.media_id !== undefined) {
      // Icons come from PUT /design/<id>/icon; until one is uploaded only clearing is possible.
      if (patch.icon.media_id === null || patch.icon.media_id === '') changes.icon_media_id = null;
      else if (patch.icon.media_id !== design.icon_media_id) return invalid('icon.media_id', 'must be the media_id of an icon of this design');
    }
    if (patch.icon.style !== undefined) changes.icon_style = patch.icon.style;
  }
  return changes;
}

export async function patchDesign(ctx: DesignsContext, caller: DesignCaller, designId: string, patch: DesignPatch): Promise<DesignResult<{ design: Json }>> {
  const result = await onDesign(ctx.commands, 'design.patch', caller.profileId, designId, 'edit_design', async (unit, design) => {
    const changes = await changesOf(ctx, unit.tx, design, patch, unit.now);
    if ('error' in changes) return unit.reject(changes);
    if (Object.keys(changes).length > 0) await store.updateDesign(unit.tx, designId, changes, unit.now);
    return { ok: true as const };
  });
  if ('error' in result) return result;
  return { ok: true, design: await freshDesignJson(ctx, caller, designId) };
}

export async function removeDesign(ctx: DesignsContext, caller: DesignCaller, designId: string): Promise<DesignResult<object>> {
  return onDesign(ctx.commands, 'design.delete', caller.profileId, designId, 'manage_design', async (unit) => {
    if (!unit.send(designKind, designId, { type: 'design.delete', at: unit.now.toISOString() })) {
      return unit.reject(designFailure('design_published', { description: 'A published design cannot be deleted.' }));
    }
    await store.markDeleted(unit.tx, designId, unit.now);
    return { ok: true as const };
  });
}
