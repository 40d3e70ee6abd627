// Bills beyond their creation (POST /design/<id>/bill): the customer confirms that payment was sent
// another way, and the operator records a payment received outside Cashloop. Paying from the
// wallet is POST /t/<id>/accept; canceling is POST /t/<id>/retract by either side.
import { z } from 'zod';
import { amountField, boundedString } from '../http/fields.ts';
import { billDeclaredBankCharsMax } from '../../engine/limits.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { raise } from './ledger-errors.ts';
import { transferDetailFor } from './transfers.ts';

const confirmInput = z
  .object({
    declared_bank: boundedString(billDeclaredBankCharsMax).optional(),
    declared_amount: amountField.optional(),
    declared_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD').optional(),
  })
  .strict();

const transferAnswer = z.looseObject({ transfer: z.looseObject({ id: z.string() }) });

export const billRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/t/:transferId/confirm-bill',
    summary: 'The billed customer says payment was sent another way: reminders stop; the bill stays cancelable until paid.',
    tags: ['transfers'],
    caller: { kind: 'token', permission: 'manage_sent' },
    input: confirmInput,
    response: transferAnswer,
    async handler({ engine, token, params, input }) {
      const result = await engine.services.bills.confirm({
        callerId: token.profileId, transferId: params.transferId, declaredBank: input.declared_bank, declaredAmount: input.declared_amount, declaredDate: input.declared_date,
      });
      if (!result.ok) raise(result);
      return transferDetailFor({ engine, token }, result.transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/bills/:transferId/paid',
    summary: 'Operator: records a bill payment received outside Cashloop; the customer gets the brand cash.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({}).strict(),
    response: transferAnswer,
    // An unknown transfer answers as the ledger maps it: 403 not_stakeholder.
    errors: [403, 409],
    async handler({ engine, params }) {
      const result = await engine.services.bills.recordOutsidePayment(params.transferId);
      if (!result.ok) raise(result);
      return { transfer: await engine.services.ledger.queries.summary(result.transferId) };
    },
  }),
];
