// The wire shapes of designs: a design as the caller may see it (plans with edit_design, agreements
// with view_design_network), its plans and its agreements with their members' titles.
import { formatMinor } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import { designPermissionsOf } from './access.ts';
import type { DesignsContext } from './context.ts';
import { designMediaFields } from './media-views.ts';
import * as store from './store.ts';
import type { AgreementRow, DesignRow, PlanRow } from './store.ts';
import type { DesignCaller } from './types.ts';

type Json = Record<string, unknown>;

export function agreementJson(row: AgreementRow, memberTitle: string | null): Json {
  return {
    id: row.id, agreement_id: row.id, design_id: row.design_id, member_id: row.member_id, member_uid: `service:${row.member_id}`, member_title: memberTitle,
    redeemer: row.redeemer, distributor: row.distributor, settler: row.settler, terms_text: row.terms_text, terms_link: row.terms_link,
    state: row.state, active: row.state === 'active', created: row.created_at.toISOString(), modified: row.updated_at.toISOString(),
  };
}

function planJson(row: PlanRow): Json {
  return { id: row.id, plan_id: row.id, title: row.title, recipients: row.recipients, created: row.created_at.toISOString(), modified: row.updated_at.toISOString() };
}

async function titlesOf(ctx: DesignsContext, db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  for (const id of new Set(ids)) {
    const profile = await ctx.profiles.get(db, id);
    if (profile) titles.set(id, profile.title);
  }
  return titles;
}

export async function agreementsJson(ctx: DesignsContext, db: Queryable, designId: string): Promise<Json[]> {
  const rows = await store.selectAgreements(db, designId);
  const titles = await titlesOf(ctx, db, rows.map((row) => row.member_id));
  return rows.map((row) => agreementJson(row, titles.get(row.member_id) ?? null));
}

export async function designJson(ctx: DesignsContext, db: Queryable, design: DesignRow, held: ReadonlySet<string>): Promise<Json> {
  const body: Json = {
    id: design.id, design_id: design.id, title: design.title, currency: design.currency, type: design.design_type, design_type: design.design_type,
    description_html: design.description_html, multiple_images: design.multiple_images, waves: design.waves, transferable: design.transferable,
    max_per_wallet: design.max_per_wallet === null ? null : formatMinor(design.max_per_wallet, design.currency),
    designer_id: design.designer_id, featured_id: design.featured_id,
    expire: { mode: design.expire_mode, absolute: design.expire_absolute?.toISOString() ?? null, relative: design.expire_relative_days },
    email_freq: design.email_freq, generic_provider: design.generic_provider, issuer_id: design.issuer_id,
    // Images and icons (engine/designs/images.ts): image, images (per denomination), icon, icon_url.
    ...(await designMediaFields(db, ctx.core.config, design)),
    published: design.published_at !== null, published_at: design.published_at?.toISOString() ?? null,
    created: design.created_at.toISOString(), modified: design.updated_at.toISOString(),
    permissions: [...held].sort(),
  };
  if (held.has('edit_design')) body.distribution_plans = (await store.selectPlans(db, design.id)).map(planJson);
  if (held.has('view_design_network')) body.agreements = await agreementsJson(ctx, db, design.id);
  return body;
}

/** The design as it is now, after a change, with the caller's permissions on it. */
export async function freshDesignJson(ctx: DesignsContext, caller: DesignCaller, designId: string): Promise<Json> {
  const design = await store.selectDesign(ctx.sql, designId);
  if (!design) throw new Error(`design ${designId} vanished`);
  return designJson(ctx, ctx.sql, design, await designPermissionsOf(ctx.sql, design, caller.profileId));
}
