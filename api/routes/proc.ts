// Payment processor: GET /proc/sendable and POST /proc/send (deprecated aliases /proc/redeemable and
// /proc/redeem), permission process_payment, server side, with a processor token (offline and
// process_payment through the authorization code grant) of the sender it acts for.
import { z } from 'zod';
import type { TokenPrincipal } from '../http/principals.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { raise } from './pos-errors.ts';
import { loopsResponse, paymentFields, paymentInput, serialNumbersField, transferResponse } from './pull.ts';

const profileIdField = z.string().regex(/^\d{10}$/, 'must be a profile id');

/** The processor token acting and the two parties, as both processor calls name them. */
function partiesOf(token: TokenPrincipal, input: { sender_id: string; recipient_id: string }) {
  return { caller: { profileId: token.profileId, source: token.source, permissions: token.permissions }, senderId: input.sender_id, recipientId: input.recipient_id };
}

function sendable(path: string, summary: string) {
  return defineRoute({
    method: 'get',
    path,
    summary,
    tags: ['processor'],
    caller: { kind: 'token', permission: 'process_payment' },
    input: z.object({ sender_id: profileIdField, recipient_id: profileIdField, serial_numbers: serialNumbersField.optional() }).strict(),
    response: loopsResponse,
    async handler({ engine, token, input }) {
      const result = await engine.services.pos.payments.sendable({ ...partiesOf(token, input), serialNumbers: input.serial_numbers });
      if (!result.ok) raise(result);
      return result.body;
    },
  });
}

function send(path: string, summary: string) {
  return defineRoute({
    method: 'post',
    path,
    summary,
    tags: ['processor'],
    caller: { kind: 'token', permission: 'process_payment' },
    input: z.object({ sender_id: profileIdField, recipient_id: profileIdField, ...paymentFields }).strict(),
    appdata: true,
    errors: [409],
    response: transferResponse,
    async handler({ engine, token, input, appdata }) {
      const result = await engine.services.pos.payments.procSend({ ...partiesOf(token, input), ...paymentInput(input, appdata) });
      if (!result.ok) raise(result);
      return { transfer: result.transfer };
    },
  });
}

export const procRoutes: RouteDefinition[] = [
  sendable('/proc/sendable', "The sender's brand cash and whether the recipient accepts each loop (processor token of the sender)."),
  sendable('/proc/redeemable', 'Deprecated alias of GET /proc/sendable.'),
  send('/proc/send', 'Sends brand cash for the sender that granted this processor token, to an accepting business or an individual; redeemed cash settles per its plan.'),
  send('/proc/redeem', 'Deprecated alias of POST /proc/send.'),
];
