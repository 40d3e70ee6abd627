// The received-and-receivable report (POST /wallet/report/receivable) as JSON or streamed CSV, and
// settlement: POST /design/<id>/settle for a settler, POST /admin/designs/<id>/settle for the
// operator (`cashloop settle DESIGN_ID`), GET /design/<id>/settlements for what is pending.
import { once } from 'node:events';
import { z } from 'zod';
import { posDeviceCharsMax, reportDateCharsMax, settleBatchDefault, settleBatchMax } from '../../engine/limits.ts';
import { csvColumns } from '../../engine/pos/report.ts';
import { boolField, boundedString, intField, stringList } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { raise } from './pos-errors.ts';

const reportRow = z.object(Object.fromEntries(csvColumns.map((column) => [column, column === 'is_fundable' ? z.boolean() : z.string().nullable()])));

const settleAnswer = z.object({
  design_id: z.string(), settler_id: z.string(), settled: z.number(), amount: z.string(), currency: z.string(), transfer_ids: z.array(z.string()),
  pending: z.number(), pending_amount: z.string(),
});

const settleInput = z.object({ limit: intField(1, settleBatchMax).optional() }).strict();
const designIdPattern = /^\d{10}$/;

export const reportRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/wallet/report/receivable',
    summary: 'Received-and-receivable report: one row per payment part received (redemptions, outside tender), with what settled and what is pending; csv streams CSV.',
    tags: ['report'],
    caller: { kind: 'token', permission: 'view_history' },
    input: z.object({
      start_date: boundedString(reportDateCharsMax).optional(),
      end_date: boundedString(reportDateCharsMax).optional(),
      pos_device: boundedString(posDeviceCharsMax, 1).optional(),
      settlement_types: stringList.optional(),
      csv: boolField.optional(),
    }).strict(),
    response: z.object({
      report_type: z.literal('received_and_receivable'),
      generated_timestamp: z.string(),
      generated_by: z.object({ id: z.string(), title: z.string(), personal_id: z.string(), personal_title: z.string() }),
      filters: z.object({ start_date: z.string().nullable(), end_date: z.string().nullable(), pos_device: z.string(), settlement_types: z.array(z.string()) }),
      report: z.array(reportRow),
    }),
    rawResponse: { contentTypes: ['text/csv'], description: 'With csv true: the report rows as CSV, header first.' },
    async handler({ engine, token, input, response }) {
      const { report } = engine.services.pos;
      const request = {
        profileId: token.profileId, personalId: token.personalProfileId, startDate: input.start_date, endDate: input.end_date, posDevice: input.pos_device,
        settlementTypes: input.settlement_types,
      };
      const filters = report.filters(request);
      if ('error' in filters) raise(filters);
      const chunks = input.csv ? report.csv(filters) : await report.json(request, filters);
      if ('error' in chunks) raise(chunks);
      response.status(200);
      if (input.csv) {
        response.type('text/csv; charset=utf-8');
        response.setHeader('content-disposition', 'attachment; filename="received-and-receivable.csv"');
      } else {
        response.type('application/json; charset=utf-8');
      }
      for await (const chunk of chunks) {
        if (!response.write(chunk)) await once(response, 'drain');
      }
      response.end();
      return undefined;
    },
  }),

  defineRoute({
    method: 'post',
    path: '/design/:designId/settle',
    summary: "A settler pays a batch of the design's pending settlements in open loop cash from its wallet; repeat until pending is 0.",
    tags: ['designs'],
    caller: { kind: 'token', permission: 'send_cash' },
    input: settleInput,
    response: settleAnswer,
    async handler({ engine, token, input, params }) {
      const designId = designIdPattern.test(params.designId) ? params.designId : '';
      const result = await engine.services.pos.settlements.settle({ designId, settlerId: token.profileId, limit: input.limit ?? settleBatchDefault, closedLoopOnly: token.closedLoopOnly });
      if (!result.ok) raise(result);
      const { ok: _ok, ...body } = result;
      return body;
    },
  }),

  defineRoute({
    method: 'get',
    path: '/design/:designId/settlements',
    summary: "What the design's redemptions left pending, per currency.",
    tags: ['designs'],
    caller: { kind: 'token', permission: 'view_design_network' },
    input: z.object({}).strict(),
    response: z.object({ pending: z.array(z.object({ currency: z.string(), count: z.number(), amount: z.string() })) }),
    async handler({ engine, params, token }) {
      const result = await engine.services.pos.settlements.pending(params.designId, token.profileId);
      if (!result.ok) raise(result);
      return { pending: result.pending };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/designs/:designId/settle',
    summary: "The operator settles a batch of the design's pending settlements; the design's first active settler (else its issuer) pays.",
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: settleInput,
    response: settleAnswer,
    async handler({ engine, input, params }) {
      const designId = designIdPattern.test(params.designId) ? params.designId : '';
      const result = await engine.services.pos.settlements.settle({ designId, settlerId: null, limit: input.limit ?? settleBatchDefault });
      if (!result.ok) raise(result);
      const { ok: _ok, ...body } = result;
      return body;
    },
  }),
];
