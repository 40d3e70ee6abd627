// Reading designs: the caller's designs, one design, its redeemers, and the operators' views
// (every live design, or one design with every permission shown).
import { designsListMax, redeemersListMax } from '../limits.ts';
import { designFor, designPermissionsOf } from './access.ts';
import type { DesignsContext } from './context.ts';
import * as store from './store.ts';
import { designPermissions, type DesignCaller, type DesignResult } from './types.ts';
import { designJson } from './views.ts';

type Json = Record<string, unknown>;

export async function listDesigns(ctx: DesignsContext, caller: DesignCaller): Promise<Json[]> {
  const rows = await store.selectGrantedDesigns(ctx.sql, caller.profileId, designsListMax);
  return Promise.all(rows.map(async (row) => designJson(ctx, ctx.sql, row, await designPermissionsOf(ctx.sql, row, caller.profileId))));
}

export async function getDesign(ctx: DesignsContext, caller: DesignCaller, designId: string): Promise<DesignResult<{ design: Json }>> {
  const found = await designFor(ctx.sql, caller.profileId, designId, 'view_design');
  if ('error' in found) return found;
  return { ok: true, design: await designJson(ctx, ctx.sql, found.design, found.held) };
}

export async function redeemers(ctx: DesignsContext, caller: DesignCaller, designId: string): Promise<DesignResult<{ profiles: Json[] }>> {
  const found = await designFor(ctx.sql, caller.profileId, designId, 'view_design');
  if ('error' in found) return found;
  const ids = await store.selectRedeemerIds(ctx.sql, designId, redeemersListMax);
  const records = await Promise.all(ids.map((id) => ctx.profiles.get(ctx.sql, id)));
  return { ok: true, profiles: records.filter((record) => record !== null).map((record) => ctx.profiles.toPublic(record!)) };
}

export async function adminList(ctx: DesignsContext): Promise<Json[]> {
  const rows = await store.selectAllDesigns(ctx.sql, designsListMax);
  return Promise.all(rows.map((row) => designJson(ctx, ctx.sql, row, new Set(['view_design']))));
}

export async function adminShow(ctx: DesignsContext, designId: string): Promise<Json | null> {
  const design = /^\d{10}$/.test(designId) ? await store.selectDesign(ctx.sql, designId) : null;
  if (!design) return null;
  return designJson(ctx, ctx.sql, design, new Set(designPermissions));
}
