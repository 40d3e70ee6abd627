// The operator's view of cash designs (Bearer operator key): every live design, one design in
// full (plans and agreements included), and a design's agreements. The CLI's `cashloop design`
// and `cashloop agreement` commands are its clients.
import { z } from 'zod';
import type { EdgeEngine } from '../../engine/engine.ts';
import { httpError } from '../http/errors.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { designErrors } from './designs.ts';

/** One design in full, or a 404: the operator sees every design, so a missing one is just missing. */
async function designOf(engine: EdgeEngine, designId: string) {
  const design = await engine.services.designs.adminShow(designId);
  if (!design) throw httpError(designErrors, 'design_not_found', { description: 'No such design.' });
  return design;
}

const empty = z.object({}).strict();
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
];
