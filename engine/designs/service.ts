// Cash designs: create, read, edit and delete designs; distribution plans; network agreements.
// Every change of a design or an agreement is one command on its actor. Who may do what: the
// token's permission (checked at the edge) AND the profile's grant on the design (access.ts). The
// creator holds every design permission; agreement members get view_design (settlers also
// view_design_network); a published design is viewable by everyone. Here the context is built and
// the operations wired: design-edit.ts, reads.ts, plans.ts, agreements.ts (shapes: types.ts).
import type { Core } from '../core.ts';
import type { MessagesService } from '../messages/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { adminAddAgreement, adminCreateDesign, adminCreatePlan, adminDeactivateAgreement, adminRemoveAgreement } from './admin.ts';
import { addAgreement, changeAgreement, removeAgreements } from './agreements.ts';
import { designsContext } from './context.ts';
import { createDesign, patchDesign, removeDesign } from './design-edit.ts';
import { createPlan, deletePlan, patchPlan } from './plans.ts';
import { owedByDistributor } from './promises.ts';
import { adminList, adminShow, getDesign, listDesigns, redeemers } from './reads.ts';
import type { DesignsService } from './types.ts';

export { planRecipientsProblem } from './plans.ts';
export { designPermissions, designTypes } from './types.ts';
export type { AgreementInput, DesignCaller, DesignPatch, DesignResult, DesignsService, DesignType } from './types.ts';

export function createDesignsService(core: Core, dependencies: { profiles: ProfilesService; messages: MessagesService }): DesignsService {
  const ctx = designsContext(core, dependencies);
  return {
    create: (caller, input) => createDesign(ctx, caller, input),
    list: (caller) => listDesigns(ctx, caller),
    get: (caller, designId) => getDesign(ctx, caller, designId),
    patch: (caller, designId, patch) => patchDesign(ctx, caller, designId, patch),
    remove: (caller, designId) => removeDesign(ctx, caller, designId),
    createPlan: (caller, designId, title) => createPlan(ctx, caller, designId, title),
    patchPlan: (caller, designId, planId, changes) => patchPlan(ctx, caller, designId, planId, changes),
    deletePlan: (caller, designId, planId) => deletePlan(ctx, caller, designId, planId),
    addAgreement: (caller, designId, input) => addAgreement(ctx, caller, designId, input),
    changeAgreement: (caller, designId, agreementId, change) => changeAgreement(ctx, caller, designId, agreementId, change),
    removeAgreements: (caller, designId, ids) => removeAgreements(ctx, caller, designId, ids),
    redeemers: (caller, designId) => redeemers(ctx, caller, designId),
    adminList: () => adminList(ctx),
    adminShow: (designId) => adminShow(ctx, designId),
    adminCreate: (issuerId, input) => adminCreateDesign(ctx, issuerId, input),
    adminCreatePlan: (designId, title) => adminCreatePlan(ctx, designId, title),
    adminAddAgreement: (designId, input) => adminAddAgreement(ctx, designId, input),
    adminDeactivateAgreement: (designId, agreementId) => adminDeactivateAgreement(ctx, designId, agreementId),
    adminRemoveAgreement: (designId, agreementId) => adminRemoveAgreement(ctx, designId, agreementId),
    adminOwed: () => owedByDistributor(ctx.sql),
  };
}
