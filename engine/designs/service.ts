// Cash designs: create, read, edit and delete designs; distribution plans; network agreements.
// Every change of a design or an agreement is one command on its actor. Who may do what: the
// token's permission (checked at the edge) AND the profile's grant on the design (here). The
// creator holds every design permission; agreement members get view_design (settlers also
// view_design_network); a published design is viewable by everyone.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { agreementRemoveIdsMax, designsListMax, redeemersListMax } from '../limits.ts';
import type { MessagesService } from '../messages/service.ts';
import { agreementMessage } from '../messages/templates.ts';
import { formatMinor, parsePositiveAmount } from '../money.ts';
import { canonicalUidOf, sanitizeDescription } from '../profiles/names.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import { designFailure, invalid, type DesignFailure } from './errors.ts';
import { designMediaFields } from './images.ts';
import { agreementKind, designKind, type AgreementEvent } from './machine.ts';
import * as store from './store.ts';
import type { AgreementRow, DesignChanges, DesignRow, PlanRecipient, PlanRow } from './store.ts';

/** Every permission a design's creator holds on it. */
export const designPermissions: readonly string[] = Object.freeze([
  'view_design', 'edit_design', 'view_design_network', 'apply_design', 'manage_design', 'add_agreement', 'activate_agreement', 'deactivate_agreement',
  'remove_agreement',
]);

export const designTypes = ['gl_design', 'open_design', 'overlay_design'] as const;
export type DesignType = (typeof designTypes)[number];

/** The profile feature each design type needs; overlay designs need none. */
const typeFeatures: Record<DesignType, string | null> = { gl_design: 'design_gl', open_design: 'issue_open_loop', overlay_design: null };

export interface DesignCaller {
  profileId: string;
}

export interface DesignPatch {
  title?: string;
  description_html?: string | null;
  multiple_images?: boolean;
  waves?: boolean;
  transferable?: boolean;
  max_per_wallet?: string | null;
  designer_id?: string | null;
  featured_id?: string | null;
  expire?: { mode: 'absolute' | 'relative' | null; absolute?: string | null; relative?: number | null };
  email_freq?: 'daily' | 'weekly' | 'weekly2' | 'monthly' | null;
  generic_provider?: boolean;
  icon?: { media_id?: string | null; style?: 'fit' | 'zoom' };
}

export interface AgreementInput {
  uid: string;
  redeemer: boolean;
  distributor: boolean;
  settler: boolean;
  termsText: string;
  termsLink: string | null;
}

type Json = Record<string, unknown>;
export type DesignResult<T> = ({ ok: true } & T) | DesignFailure;

export interface DesignsService {
  create(caller: DesignCaller, input: { title: string; currency: string; designType: DesignType }): Promise<DesignResult<{ design: Json }>>;
  list(caller: DesignCaller): Promise<Json[]>;
  get(caller: DesignCaller, designId: string): Promise<DesignResult<{ design: Json }>>;
  patch(caller: DesignCaller, designId: string, patch: DesignPatch): Promise<DesignResult<{ design: Json }>>;
  remove(caller: DesignCaller, designId: string): Promise<DesignResult<object>>;
  createPlan(caller: DesignCaller, designId: string, title: string): Promise<DesignResult<{ planId: string }>>;
  patchPlan(caller: DesignCaller, designId: string, planId: string, changes: { title?: string; recipients?: PlanRecipient[] }): Promise<DesignResult<{ design: Json }>>;
  deletePlan(caller: DesignCaller, designId: string, planId: string): Promise<DesignResult<{ design: Json }>>;
  addAgreement(caller: DesignCaller, designId: string, input: AgreementInput): Promise<DesignResult<{ agreement: Json; agreements: Json[] }>>;
  changeAgreement(caller: DesignCaller, designId: string, agreementId: string, change: 'activate' | 'deactivate'): Promise<DesignResult<{ agreement: Json }>>;
  removeAgreements(caller: DesignCaller, designId: string, ids: string[]): Promise<DesignResult<{ agreements: Json[] }>>;
  redeemers(caller: DesignCaller, designId: string): Promise<DesignResult<{ profiles: Json[] }>>;
  /** Operators: every live design, or one design in full. */
  adminList(): Promise<Json[]>;
  adminShow(designId: string): Promise<Json | null>;
}

function agreementJson(row: AgreementRow, memberTitle: string | null): Json {
  return {
    id: row.id, agreement_id: row.id, design_id: row.design_id, member_id: row.member_id, member_uid: `service:${row.member_id}`, member_title: memberTitle,
    redeemer: row.redeemer, distributor: row.distributor, settler: row.settler, terms_text: row.terms_text, terms_link: row.terms_link,
    state: row.state, active: row.state === 'active', created: row.created_at.toISOString(), modified: row.updated_at.toISOString(),
  };
}

function planJson(row: PlanRow): Json {
  return { id: row.id, plan_id: row.id, title: row.title, recipients: row.recipients, created: row.created_at.toISOString(), modified: row.updated_at.toISOString() };
}

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

export function createDesignsService(core: Core, dependencies: { profiles: ProfilesService; messages: MessagesService }): DesignsService {
  const { sql, commands } = core;
  const { profiles, messages } = dependencies;

  /** The design permissions the profile holds: its grants, and view_design on a published design. */
  async function permissionsOn(db: Queryable, design: DesignRow, profileId: string): Promise<Set<string>> {
    const granted = new Set(await store.selectGrants(db, design.id, profileId));
    if (design.published_at) granted.add('view_design');
    return granted;
  }

  /** The design and the caller's permissions on it; not found when deleted or not viewable. */
  async function visible(db: Queryable, caller: DesignCaller, designId: string, needed: string): Promise<{ design: DesignRow; held: Set<string> } | DesignFailure> {
    const design = /^\d{10}$/.test(designId) ? await store.selectDesign(db, designId) : null;
    if (!design || design.deleted_at) return designFailure('design_not_found');
    const held = await permissionsOn(db, design, caller.profileId);
    if (!held.has('view_design')) return designFailure('design_not_found');
    if (!held.has(needed)) return designFailure('design_forbidden', { description: `This profile lacks ${needed} on the design.` });
    return { design, held };
  }

  async function titlesOf(db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
    const titles = new Map<string, string>();
    for (const id of new Set(ids)) {
      const profile = await profiles.get(db, id);
      if (profile) titles.set(id, profile.title);
    }
    return titles;
  }

  async function designJson(db: Queryable, design: DesignRow, held: ReadonlySet<string>): Promise<Json> {
    const body: Json = {
      id: design.id, design_id: design.id, title: design.title, currency: design.currency, type: design.design_type, design_type: design.design_type,
      description_html: design.description_html, multiple_images: design.multiple_images, waves: design.waves, transferable: design.transferable,
      max_per_wallet: design.max_per_wallet === null ? null : formatMinor(design.max_per_wallet, design.currency),
      designer_id: design.designer_id, featured_id: design.featured_id,
      expire: { mode: design.expire_mode, absolute: design.expire_absolute?.toISOString() ?? null, relative: design.expire_relative_days },
      email_freq: design.email_freq, generic_provider: design.generic_provider, issuer_id: design.issuer_id,
      // Images and icons (engine/designs/images.ts): image, images (per denomination), icon, icon_url.
      ...(await designMediaFields(db, core.config, design)),
      published: design.published_at !== null, published_at: design.published_at?.toISOString() ?? null,
      created: design.created_at.toISOString(), modified: design.updated_at.toISOString(),
      permissions: [...held].sort(),
    };
    if (held.has('edit_design')) body.distribution_plans = (await store.selectPlans(db, design.id)).map(planJson);
    if (held.has('view_design_network')) {
      const rows = await store.selectAgreements(db, design.id);
      const titles = await titlesOf(db, rows.map((row) => row.member_id));
      body.agreements = rows.map((row) => agreementJson(row, titles.get(row.member_id) ?? null));
    }
    return body;
  }

  async function freshDesignJson(caller: DesignCaller, designId: string): Promise<Json> {
    const design = await store.selectDesign(sql, designId);
    if (!design) throw new Error(`design ${designId} vanished`);
    return designJson(sql, design, await permissionsOn(sql, design, caller.profileId));
  }

  async function agreementsJson(db: Queryable, designId: string): Promise<Json[]> {
    const rows = await store.selectAgreements(db, designId);
    const titles = await titlesOf(db, rows.map((row) => row.member_id));
    return rows.map((row) => agreementJson(row, titles.get(row.member_id) ?? null));
  }

  /** Turns a PATCH into column changes, checking each field against the design. */
  async function changesOf(db: Queryable, design: DesignRow, patch: DesignPatch): Promise<DesignChanges | DesignFailure> {
    const changes: DesignChanges = {};
    if (patch.title !== undefined) changes.title = patch.title.trim();
    if (patch.description_html !== undefined) changes.description_html = patch.description_html ? sanitizeDescription(patch.description_html) : '';
    for (const flag of ['multiple_images', 'waves', 'transferable', 'generic_provider'] as const) if (patch[flag] !== undefined) changes[flag] = patch[flag];
    if (patch.max_per_wallet !== undefined) {
      if (patch.max_per_wallet === null || patch.max_per_wallet === '') changes.max_per_wallet = null;
      else {
        const parsed = parsePositiveAmount(patch.max_per_wallet, design.currency);
        if (!parsed.ok) return invalid('max_per_wallet', `must be a positive amount of ${design.currency} (${parsed.error})`);
        changes.max_per_wallet = parsed.value.minor;
      }
    }
    for (const field of ['designer_id', 'featured_id'] as const) {
      const value = patch[field];
      if (value === undefined) continue;
      if (value === null || value === '') changes[field] = null;
      else if (!/^\d{10}$/.test(value) || !(await profiles.get(db, value))) return invalid(field, 'must be a profile id');
      else changes[field] = value;
    }
    if (patch.expire !== undefined) {
      const { mode, absolute, relative } = patch.expire;
      if (mode === null) Object.assign(changes, { expire_mode: null, expire_absolute: null, expire_relative_days: null });
      else if (mode === 'absolute') {
        const when = absolute ? new Date(absolute) : null;
        if (!when || Number.isNaN(when.getTime())) return invalid('expire.absolute', 'is required for mode absolute (ISO 8601)');
        Object.assign(changes, { expire_mode: 'absolute', expire_absolute: when, expire_relative_days: null });
      } else {
        if (!relative) return invalid('expire.relative', 'is required for mode relative (days)');
        Object.assign(changes, { expire_mode: 'relative', expire_absolute: null, expire_relative_days: relative });
      }
    }
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

  /** Runs a change of one design under its lock, after checking the caller may make it. */
  function onDesign<T>(name: string, caller: DesignCaller, designId: string, needed: string, body: (unit: Unit<DesignFailure>, design: DesignRow) => Promise<T>): Promise<T | DesignFailure> {
    return commands.run(name, [{ kind: designKind.kind, id: designId }], async (unit: Unit<DesignFailure>) => {
      const found = await visible(unit.tx, caller, designId, needed);
      if ('error' in found) return unit.reject(found);
      const snapshot = await unit.load(designKind, designId);
      if (!snapshot || snapshot.value === 'deleted') return unit.reject(designFailure('design_not_found'));
      return body(unit, found.design);
    });
  }

  async function notifyMember(unit: Unit, design: DesignRow, row: AgreementRow, active: boolean): Promise<void> {
    const [owner, uids] = await Promise.all([profiles.get(unit.tx, design.issuer_id), profiles.confirmedUids(unit.tx, row.member_id)]);
    const email = uids.find((uid) => uid.startsWith('email:'));
    if (!email) return;
    const roles = (['redeemer', 'distributor', 'settler'] as const).filter((role) => row[role]);
    const content = agreementMessage({ ownerTitle: owner?.title ?? 'A merchant', designTitle: design.title, roles, termsText: row.terms_text, active });
    messages.queue(unit, { channel: 'email', to: email.slice('email:'.length), template: 'agreement-added', ...content });
  }

  const service: DesignsService = {
    async create(caller, input) {
      const feature = typeFeatures[input.designType];
      if (feature && !(await profiles.hasFeature(sql, caller.profileId, feature))) {
        return designFailure('feature_required', { description: `A ${input.designType} needs the ${feature} feature on the profile.` });
      }
      const designId = await commands.run('design.create', [], async (unit) => {
        const id = await unit.newShortId('design');
        unit.create(designKind, id, { issuerId: caller.profileId, createdAt: unit.now.toISOString() });
        await store.insertDesign(unit.tx, { id, issuerId: caller.profileId, designType: input.designType, title: input.title.trim(), currency: input.currency }, unit.now);
        await store.insertGrants(unit.tx, id, caller.profileId, designPermissions, unit.now);
        return id;
      });
      return { ok: true, design: await freshDesignJson(caller, designId) };
    },

    async list(caller) {
      const rows = await store.selectGrantedDesigns(sql, caller.profileId, designsListMax);
      return Promise.all(rows.map(async (row) => designJson(sql, row, await permissionsOn(sql, row, caller.profileId))));
    },

    async get(caller, designId) {
      const found = await visible(sql, caller, designId, 'view_design');
      if ('error' in found) return found;
      return { ok: true, design: await designJson(sql, found.design, found.held) };
    },

    async patch(caller, designId, patch) {
      const result = await onDesign('design.patch', caller, designId, 'edit_design', async (unit, design) => {
        const changes = await changesOf(unit.tx, design, patch);
        if ('error' in changes) return unit.reject(changes);
        if (Object.keys(changes).length > 0) await store.updateDesign(unit.tx, designId, changes, unit.now);
        return { ok: true as const };
      });
      if ('error' in result) return result;
      return { ok: true, design: await freshDesignJson(caller, designId) };
    },

    async remove(caller, designId) {
      return onDesign('design.delete', caller, designId, 'manage_design', async (unit) => {
        if (!unit.send(designKind, designId, { type: 'design.delete', at: unit.now.toISOString() })) {
          return unit.reject(designFailure('design_published', { description: 'A published design cannot be deleted.' }));
        }
        await store.markDeleted(unit.tx, designId, unit.now);
        return { ok: true as const };
      });
    },

    async createPlan(caller, designId, title) {
      return onDesign('design.plan_create', caller, designId, 'edit_design', async (unit) => {
        const planId = await unit.newShortId('plan');
        // Default terms: the redeemer gets open loop settlement equal to the brand cash it receives.
        const recipients: PlanRecipient[] = [{ percentage: '100', loop_id: designId, recipient_type: 'redeemer', recipient_id: '0' }];
        await store.insertPlan(unit.tx, { id: planId, designId, title: title.trim(), recipients }, unit.now);
        return { ok: true as const, planId };
      });
    },

    async patchPlan(caller, designId, planId, changes) {
      let known = new Set<string>();
      if (changes.recipients) {
        const statics = changes.recipients.filter((row) => row.recipient_type === 'static' && /^\d{10}$/.test(row.recipient_id)).map((row) => row.recipient_id);
        known = new Set((await Promise.all(statics.map(async (id) => ((await profiles.get(sql, id)) ? id : null)))).filter((id): id is string => id !== null));
        const problem = planRecipientsProblem(changes.recipients, designId, (id) => known.has(id));
        if (problem) return invalid('recipients', problem);
      }
      const result = await onDesign('design.plan_patch', caller, designId, 'edit_design', async (unit) => {
        if (!(await store.selectPlan(unit.tx, designId, planId))) return unit.reject(designFailure('plan_not_found'));
        await store.updatePlan(unit.tx, planId, { title: changes.title?.trim(), recipients: changes.recipients }, unit.now);
        return { ok: true as const };
      });
      if ('error' in result) return result;
      return { ok: true, design: await freshDesignJson(caller, designId) };
    },

    async deletePlan(caller, designId, planId) {
      const result = await onDesign('design.plan_delete', caller, designId, 'edit_design', async (unit) => {
        if (!(await store.markPlanDeleted(unit.tx, designId, planId, unit.now))) return unit.reject(designFailure('plan_not_found'));
        return { ok: true as const };
      });
      if ('error' in result) return result;
      return { ok: true, design: await freshDesignJson(caller, designId) };
    },

    async addAgreement(caller, designId, input) {
      const uid = canonicalUidOf(input.uid);
      const member = uid ? await profiles.findByUid(sql, uid) : null;
      if (!member) return designFailure('member_not_found', { invalid: { uid: 'names no profile' } });
      const result = await onDesign('design.agreement_add', caller, designId, 'add_agreement', async (unit, design) => {
        const agreementId = await unit.newShortId('agreement');
        const active = member.id === design.issuer_id;
        const snapshot = unit.create(agreementKind, agreementId, { designId, memberId: member.id, at: unit.now.toISOString(), active });
        const row: AgreementRow = {
          id: agreementId, design_id: designId, member_id: member.id, redeemer: input.redeemer, distributor: input.distributor, settler: input.settler,
          terms_text: input.termsText, terms_link: input.termsLink, state: snapshot.value as AgreementRow['state'], added_by: caller.profileId,
          created_at: unit.now, updated_at: unit.now,
        };
        await store.insertAgreement(unit.tx, row, unit.now);
        await store.insertGrants(unit.tx, designId, member.id, input.settler ? ['view_design', 'view_design_network'] : ['view_design'], unit.now);
        await notifyMember(unit, design, row, active);
        return { ok: true as const, agreement: agreementJson(row, member.title) };
      });
      if ('error' in result) return result;
      return { ok: true, agreement: result.agreement, agreements: await agreementsJson(sql, designId) };
    },

    async changeAgreement(caller, designId, agreementId, change) {
      const result = await commands.run(`design.agreement_${change}`, [{ kind: designKind.kind, id: designId }, { kind: agreementKind.kind, id: agreementId }], async (unit: Unit<DesignFailure>) => {
        const row = /^\d{10}$/.test(agreementId) ? await store.selectAgreement(unit.tx, designId, agreementId) : null;
        const design = await store.selectDesign(unit.tx, designId);
        if (!design || design.deleted_at || !row || row.state === 'removed') return unit.reject(designFailure('agreement_not_found'));
        const isMember = row.member_id === caller.profileId;
        const held = await permissionsOn(unit.tx, design, caller.profileId);
        // Activation has legal weight: only the member named in the agreement may give it.
        const allowed = change === 'activate' ? isMember : isMember || held.has('deactivate_agreement');
        if (!allowed) return unit.reject(designFailure('not_member', { description: change === 'activate' ? 'Only the member named in the agreement may activate it.' : 'Only a network owner or the member may deactivate an agreement.' }));
        await unit.load(agreementKind, agreementId);
        const event: AgreementEvent = { type: change === 'activate' ? 'agreement.activate' : 'agreement.deactivate', at: unit.now.toISOString() };
        const next = unit.send(agreementKind, agreementId, event);
        if (next) await store.updateAgreementState(unit.tx, agreementId, next.value as AgreementRow['state'], unit.now);
        const fresh = await store.selectAgreement(unit.tx, designId, agreementId);
        const member = await profiles.get(unit.tx, row.member_id);
        return { ok: true as const, agreement: agreementJson(fresh!, member?.title ?? null) };
      });
      return result;
    },

    async removeAgreements(caller, designId, ids) {
      const result = await onDesign('design.agreement_remove', caller, designId, 'view_design', async (unit, design) => {
        const held = await permissionsOn(unit.tx, design, caller.profileId);
        for (const id of new Set(ids.slice(0, agreementRemoveIdsMax))) {
          const row = /^\d{10}$/.test(id) ? await store.selectAgreement(unit.tx, designId, id) : null;
          // Removals the caller may not make are skipped silently (spec).
          if (!row || row.state === 'removed' || !(held.has('remove_agreement') || row.member_id === caller.profileId)) continue;
          await unit.load(agreementKind, id);
          const next = unit.send(agreementKind, id, { type: 'agreement.remove', at: unit.now.toISOString() });
          if (next) await store.updateAgreementState(unit.tx, id, 'removed', unit.now);
        }
        return { ok: true as const };
      });
      if ('error' in result) return result;
      return { ok: true, agreements: await agreementsJson(sql, designId) };
    },

    async redeemers(caller, designId) {
      const found = await visible(sql, caller, designId, 'view_design');
      if ('error' in found) return found;
      const ids = await store.selectRedeemerIds(sql, designId, redeemersListMax);
      const records = await Promise.all(ids.map((id) => profiles.get(sql, id)));
      return { ok: true, profiles: records.filter((record) => record !== null).map((record) => profiles.toPublic(record!)) };
    },

    async adminList() {
      const rows = await store.selectAllDesigns(sql, designsListMax);
      return Promise.all(rows.map((row) => designJson(sql, row, new Set(['view_design']))));
    },

    async adminShow(designId) {
      const design = /^\d{10}$/.test(designId) ? await store.selectDesign(sql, designId) : null;
      if (!design) return null;
      return designJson(sql, design, new Set(designPermissions));
    },
  };
  return service;
}
