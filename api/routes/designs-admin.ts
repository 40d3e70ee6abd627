// The operator's view of cash designs (Bearer operator key): every live design, one design in
// full (plans and agreements included), and a design's agreements; and creating a design, a plan
// and an agreement as the design's issuer would. The CLI's `cashloop design`, `cashloop plan` and
// `cashloop agreement` commands are its clients.
import { z } from 'zod';
import type { EdgeEngine } from '../../engine/engine.ts';
import { idCharsMax, planTitleCharsMax } from '../../engine/limits.ts';
import { httpError } from '../http/errors.ts';
import { requiredString } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { agreementAddInput, createInput, designErrors, raise } from './designs.ts';

/** One design in full, or a 404: the operator sees every design, so a missing one is just missing. */
async function designOf(engine: EdgeEngine, designId: string) {
  const design = await engine.services.designs.adminShow(designId);
  if (!design) throw httpError(designErrors, 'design_not_found', { description: 'No such design.' });
  return design;
}

const empty = z.object({}).strict();
// As the issuer's own calls (POST /design/create, POST /design/<id>/agreement/add), for the issuer the operator names.
const createDesignInput = createInput.extend({ issuer_id: requiredString(idCharsMax) }).strict();
const createPlanInput = z.object({ title: requiredString(planTitleCharsMax) }).strict();
const addAgreementInput = agreementAddInput;
const designAnswer = z.looseObject({ id: z.string(), title: z.string(), currency: z.string(), type: z.string(), issuer_id: z.string(), published: z.boolean() });
const agreementAnswer = z.looseObject({ id: z.string(), member_id: z.string(), state: z.string() });

export const designAdminRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/admin/designs',
    summary: 'Every live (not deleted) cash design, newest first.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: z.object({ designs: z.array(designAnswer) }),
    async handler({ engine }) {
      return { designs: await engine.services.designs.adminList() };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/designs/:designId',
    summary: 'One cash design in full: plans and agreements included (deleted designs too).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: designAnswer,
    async handler({ engine, params }) {
      return designOf(engine, params.designId);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/designs/:designId/agreements',
    summary: "A design's network agreements that are not removed, oldest first.",
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: z.object({ design_id: z.string(), agreements: z.array(agreementAnswer) }),
    async handler({ engine, params }) {
      const design = await designOf(engine, params.designId);
      return { design_id: params.designId, agreements: (design.agreements as unknown[] | undefined) ?? [] };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/designs',
    summary: 'Creates a cash design for an issuer profile, as that profile would (gl_design needs its design_gl feature; open_design an open loop issuer).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: createDesignInput,
    response: designAnswer,
    errors: [403],
    async handler({ engine, input }) {
      const result = await engine.services.designs.adminCreate(input.issuer_id, { title: input.title, currency: input.currency, designType: input.design_type });
      if (!result.ok) raise(result);
      return result.design;
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/designs/:designId/plans',
    summary: "Creates a distribution plan on a design, as its issuer would (default terms: the redeemer gets open loop settlement equal to the brand cash it receives).",
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: createPlanInput,
    response: z.strictObject({ plan_id: z.string() }),
    errors: [404],
    async handler({ engine, params, input }) {
      const result = await engine.services.designs.adminCreatePlan(params.designId, input.title);
      if (!result.ok) raise(result);
      return { plan_id: result.planId };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/designs/:designId/agreements',
    summary: 'Adds a network agreement to a design, as its issuer would (inactive until its member activates it; the member is told by message).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: addAgreementInput,
    response: z.object({ agreement: agreementAnswer, agreements: z.array(agreementAnswer) }),
    errors: [404],
    async handler({ engine, params, input }) {
      const result = await engine.services.designs.adminAddAgreement(params.designId, {
        uid: input.uid, redeemer: input.redeemer ?? false, distributor: input.distributor ?? false, settler: input.settler ?? false,
        termsText: input.terms_text, termsLink: input.terms_link ?? null,
      });
      if (!result.ok) raise(result);
      return { agreement: result.agreement, agreements: result.agreements };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/designs/:designId/agreements/:agreementId/deactivate',
    summary: "Deactivates a network agreement, as the design's issuer would. Activation is the member's own call (POST /design/<id>/agreement/<agreement_id>/activate with the member's token).",
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: z.object({ agreement: agreementAnswer }),
    errors: [404],
    async handler({ engine, params }) {
      const result = await engine.services.designs.adminDeactivateAgreement(params.designId, params.agreementId);
      if (!result.ok) raise(result);
      return { agreement: result.agreement };
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/admin/designs/:designId/agreements/:agreementId',
    summary: "Removes a network agreement, as the design's issuer would; answers the design's agreements left.",
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: z.object({ agreements: z.array(agreementAnswer) }),
    errors: [404],
    async handler({ engine, params }) {
      const result = await engine.services.designs.adminRemoveAgreement(params.designId, params.agreementId);
      if (!result.ok) raise(result);
      return { agreements: result.agreements };
    },
  }),
];
