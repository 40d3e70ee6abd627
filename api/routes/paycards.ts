// Paycards: GET /wallet/paycard/list (view_paycard); POST /wallet/paycard/link, /delete, /set-pin,
// /suspend, /unsuspend (link_paycard); and the simulated card network's authorization check for
// operators (a suspended card cannot pay).
import { z } from 'zod';
import type { PaycardError, PaycardFailure } from '../../engine/paycards/errors.ts';
import { errorTable, httpError, edgeErrors } from '../http/errors.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { paycardIdCharsMax, paycardPanCharsMax, paycardPinCharsMax } from '../../engine/limits.ts';

export const paycardErrors = errorTable<PaycardError>({
  invalid: edgeErrors.invalid,
  card_not_found: { status: 400, error: 'invalid', description: 'No such card on this wallet.' },
  card_deleted: { status: 400, error: 'invalid', description: 'The card was deleted.' },
  not_allowed: { status: 403, error: 'forbidden', description: 'This profile may not change the card.' },
  too_many_cards: { status: 400, error: 'invalid', description: 'The wallet links as many cards as it may.' },
});

function raise(failure: PaycardFailure): never {
  throw httpError(paycardErrors, failure.error, { invalid: failure.invalid, description: failure.description });
}

const card = z.strictObject({ card_id: z.string(), pan_redacted: z.string(), suspended: z.boolean(), expiration: z.string() });
const cardIdInput = z.object({ card_id: z.string().min(1, 'is required').max(paycardIdCharsMax) }).strict();
// The card number is never logged: the logger masks fields named pan and pin (engine/logger.ts).
const linkInput = z.object({ pan: z.string().min(1, 'is required').max(paycardPanCharsMax), pin: z.string().min(1, 'is required').max(paycardPinCharsMax) }).strict();
const setPinInput = z.object({ card_id: z.string().min(1, 'is required').max(paycardIdCharsMax), pin: z.string().min(1, 'is required').max(paycardPinCharsMax) }).strict();

export const paycardRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/wallet/paycard/list',
    summary: "The wallet's linked payment cards.",
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'view_paycard' },
    input: z.object({}).strict(),
    response: z.strictObject({ cards: z.array(card) }),
    async handler({ engine, token }) {
      return { cards: await engine.services.paycards.list(token.profileId) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/wallet/paycard/link',
    summary: 'Links a payment card (number and 4-digit PIN); the card network may decline (linked false).',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'link_paycard' },
    input: linkInput,
    response: z.strictObject({ linked: z.boolean() }),
    async handler({ engine, token, input }) {
      const result = await engine.services.paycards.link(token.profileId, input);
      if (!result.ok) raise(result);
      return { linked: result.linked };
    },
  }),
  ...(['delete', 'suspend', 'unsuspend'] as const).map((change) =>
    defineRoute({
      method: 'post',
      path: `/wallet/paycard/${change}`,
      summary: `${change[0].toUpperCase()}${change.slice(1)}s a linked card.`,
      tags: ['wallet'],
      caller: { kind: 'token', permission: 'link_paycard' },
      input: cardIdInput,
      response: z.strictObject({}),
      async handler({ engine, token, input }) {
        const result = await engine.services.paycards.change(token.profileId, input.card_id, change);
        if (!result.ok) raise(result);
        return {};
      },
    }),
  ),
  defineRoute({
    method: 'post',
    path: '/wallet/paycard/set-pin',
    summary: "Sets a linked card's 4-digit PIN (kept only as a hash).",
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'link_paycard' },
    input: setPinInput,
    response: z.strictObject({}),
    async handler({ engine, token, input }) {
      const result = await engine.services.paycards.setPin(token.profileId, input.card_id, input.pin);
      if (!result.ok) raise(result);
      return {};
    },
  }),
  defineRoute({
    method: 'post',
    path: '/admin/paycards/authorize',
    summary: 'Operator: the simulated card network asks whether a card may pay (a suspended or deleted card may not).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: cardIdInput,
    response: z.strictObject({ approved: z.boolean(), reason: z.string().nullable() }),
    async handler({ engine, input }) {
      return engine.services.paycards.authorize(input.card_id);
    },
  }),
];
