// The operator's design changes (admin API): the operator acts as the design's issuer, so every
// check of the issuer's own calls (features, grants, the agreement's member) still applies.
import type { DesignsContext } from './context.ts';
import { createDesign } from './design-edit.ts';
import { addAgreement, changeAgreement, removeAgreements } from './agreements.ts';
import { designFailure, invalid } from './errors.ts';
import { createPlan } from './plans.ts';
import * as store from './store.ts';
import type { AgreementInput, DesignResult, DesignType } from './types.ts';

type Json = Record<string, unknown>;

/** A design issued by issuerId, created as if that profile had asked. */
export async function adminCreateDesign(ctx: DesignsContext, issuerId: string, input: { title: string; currency: string; designType: DesignType }): Promise<DesignResult<{ design: Json }>> {
  if (!/^\d{10}$/.test(issuerId) || !(await ctx.profiles.get(ctx.sql, issuerId))) return invalid('issuer_id', 'names no profile');
  return createDesign(ctx, { profileId: issuerId }, input);
}

/** The design's issuer: who the operator acts as on it. */
async function issuerOf(ctx: DesignsContext, designId: string): Promise<string | null> {
  const design = /^\d{10}$/.test(designId) ? await store.selectDesign(ctx.sql, designId) : null;
  return design && !design.deleted_at ? design.issuer_id : null;
}

export async function adminCreatePlan(ctx: DesignsContext, designId: string, title: string): Promise<DesignResult<{ planId: string }>> {
  const issuerId = await issuerOf(ctx, designId);
  if (!issuerId) return designFailure('design_not_found', { description: 'No such design.' });
  return createPlan(ctx, { profileId: issuerId }, designId, title);
}

export async function adminAddAgreement(ctx: DesignsContext, designId: string, input: AgreementInput): Promise<DesignResult<{ agreement: Json; agreements: Json[] }>> {
  const issuerId = await issuerOf(ctx, designId);
  if (!issuerId) return designFailure('design_not_found', { description: 'No such design.' });
  return addAgreement(ctx, { profileId: issuerId }, designId, input);
}

/** The operator deactivates an agreement, as the design's issuer (a network owner) would. */
export async function adminDeactivateAgreement(ctx: DesignsContext, designId: string, agreementId: string): Promise<DesignResult<{ agreement: Json }>> {
  const issuerId = await issuerOf(ctx, designId);
  if (!issuerId) return designFailure('design_not_found', { description: 'No such design.' });
  return changeAgreement(ctx, { profileId: issuerId }, designId, agreementId, 'deactivate');
}

/** The operator removes one agreement, as the design's issuer would; a missing or removed one is a 404, not skipped. */
export async function adminRemoveAgreement(ctx: DesignsContext, designId: string, agreementId: string): Promise<DesignResult<{ agreements: Json[] }>> {
  const issuerId = await issuerOf(ctx, designId);
  if (!issuerId) return designFailure('design_not_found', { description: 'No such design.' });
  const row = /^\d{10}$/.test(agreementId) ? await store.selectAgreement(ctx.sql, designId, agreementId) : null;
  if (!row || row.state === 'removed') return designFailure('agreement_not_found');
  return removeAgreements(ctx, { profileId: issuerId }, designId, [agreementId]);
}
