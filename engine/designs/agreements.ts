// Network agreements of a design: adding a member (redeemer, distributor, settler) with terms,
// the member activating it (or either side deactivating it), and removals; members are emailed.
import type { Unit } from '../actors/command.ts';
import { agreementRemoveIdsMax } from '../limits.ts';
import { agreementMessage } from '../messages/templates.ts';
import { canonicalUidOf } from '../profiles/names.ts';
import { designPermissionsOf, onDesign } from './access.ts';
import type { DesignsContext } from './context.ts';
import { designFailure, type DesignFailure } from './errors.ts';
import { agreementKind, designKind, type AgreementEvent } from './machine.ts';
import * as store from './store.ts';
import type { AgreementRow, DesignRow } from './store.ts';
import type { AgreementInput, DesignCaller, DesignResult } from './types.ts';
import { agreementJson, agreementsJson } from './views.ts';

type Json = Record<string, unknown>;

async function notifyMember(ctx: DesignsContext, unit: Unit, design: DesignRow, row: AgreementRow, active: boolean): Promise<void> {
  const [owner, uids] = await Promise.all([ctx.profiles.get(unit.tx, design.issuer_id), ctx.profiles.confirmedUids(unit.tx, row.member_id)]);
  const email = uids.find((uid) => uid.startsWith('email:'));
  if (!email) return;
  const roles = (['redeemer', 'distributor', 'settler'] as const).filter((role) => row[role]);
  const content = agreementMessage({ ownerTitle: owner?.title ?? 'A merchant', designTitle: design.title, roles, termsText: row.terms_text, active });
  ctx.messages.queue(unit, { channel: 'email', to: email.slice('email:'.length), template: 'agreement-added', ...content });
}

export async function addAgreement(ctx: DesignsContext, caller: DesignCaller, designId: string, input: AgreementInput): Promise<DesignResult<{ agreement: Json; agreements: Json[] }>> {
  const uid = canonicalUidOf(input.uid);
  const member = uid ? await ctx.profiles.findByUid(ctx.sql, uid) : null;
  if (!member) return designFailure('member_not_found', { invalid: { uid: 'names no profile' } });
  const result = await onDesign(ctx.commands, 'design.agreement_add', caller.profileId, designId, 'add_agreement', async (unit, design) => {
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
    await notifyMember(ctx, unit, design, row, active);
    return { ok: true as const, agreement: agreementJson(row, member.title) };
  });
  if ('error' in result) return result;
  return { ok: true, agreement: result.agreement, agreements: await agreementsJson(ctx, ctx.sql, designId) };
}

/** The command body of an activation or a deactivation, under the design's and the agreement's locks. */
async function changeAgreementIn(
  ctx: DesignsContext, unit: Unit<DesignFailure>, caller: DesignCaller, designId: string, agreementId: string, change: 'activate' | 'deactivate',
): Promise<{ ok: true; agreement: Json }> {
  const row = /^\d{10}$/.test(agreementId) ? await store.selectAgreement(unit.tx, designId, agreementId) : null;
  const design = await store.selectDesign(unit.tx, designId);
  if (!design || design.deleted_at || !row || row.state === 'removed') return unit.reject(designFailure('agreement_not_found'));
  const isMember = row.member_id === caller.profileId;
  const held = await designPermissionsOf(unit.tx, design, caller.profileId);
  // Activation has legal weight: only the member named in the agreement may give it.
  const allowed = change === 'activate' ? isMember : isMember || held.has('deactivate_agreement');
  if (!allowed) return unit.reject(designFailure('not_member', { description: change === 'activate' ? 'Only the member named in the agreement may activate it.' : 'Only a network owner or the member may deactivate an agreement.' }));
  await unit.load(agreementKind, agreementId);
  const event: AgreementEvent = { type: change === 'activate' ? 'agreement.activate' : 'agreement.deactivate', at: unit.now.toISOString() };
  const next = unit.send(agreementKind, agreementId, event);
  if (next) await store.updateAgreementState(unit.tx, agreementId, next.value as AgreementRow['state'], unit.now);
  const fresh = await store.selectAgreement(unit.tx, designId, agreementId);
  const member = await ctx.profiles.get(unit.tx, row.member_id);
  return { ok: true as const, agreement: agreementJson(fresh!, member?.title ?? null) };
}

export async function changeAgreement(ctx: DesignsContext, caller: DesignCaller, designId: string, agreementId: string, change: 'activate' | 'deactivate'): Promise<DesignResult<{ agreement: Json }>> {
  const locks = [{ kind: designKind.kind, id: designId }, { kind: agreementKind.kind, id: agreementId }];
  return ctx.commands.run(`design.agreement_${change}`, locks, (unit: Unit<DesignFailure>) => changeAgreementIn(ctx, unit, caller, designId, agreementId, change));
}

export async function removeAgreements(ctx: DesignsContext, caller: DesignCaller, designId: string, ids: string[]): Promise<DesignResult<{ agreements: Json[] }>> {
  const result = await onDesign(ctx.commands, 'design.agreement_remove', caller.profileId, designId, 'view_design', async (unit, design) => {
    const held = await designPermissionsOf(unit.tx, design, caller.profileId);
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
  return { ok: true, agreements: await agreementsJson(ctx, ctx.sql, designId) };
}
