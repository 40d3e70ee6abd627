// Offers: merchants create, edit and close them (our own calls: the spec has none); people list,
// find and accept them (GET /o/list, /o/<id>/info, /o/find, POST /o/<id>/accept and
// /o/<id>/signup_accept); the confirmation link of an accept; the operator's admin calls.
import { z } from 'zod';
import type { OfferError, OfferFailure, TransferFailed } from '../../engine/offers/errors.ts';
import type { Failure } from '../../engine/ledger/errors.ts';
import { raise as raiseLedger } from './ledger-errors.ts';
import { paymentTypes, type OfferCaller, type OfferResult } from '../../engine/offers/service.ts';
import {
  businessNameCharsMax, captchaResponseCharsMax, signupAcceptCaptchaAfterCalls, dedupIdCharsMax, designMessageRulesMax, deviceNameCharsMax, offerAcceptEmailCharsMax, offerDescriptionCharsMax,
  offerFindDistanceMetresMax, offerFindIdsMax, offerFindLimitDefault, offerFindLimitMax, offerFindOffsetMax, offerFindTextCharsMax,
  offerOptionIdCharsMax, offerOptionsMax, offerQuantityMax, offerShowLimitMax, offerTitleCharsMax, offerUrlCharsMax,
} from '../../engine/limits.ts';
import { readBearerToken } from '../http/credentials.ts';
import { edgeErrors, errorTable, httpError } from '../http/errors.ts';
import {
  amountField, boolField, boundedString, currencyField, deviceUuidField, intField, latitudeField, longitudeField, requiredString, stringList, timestampField,
} from '../http/fields.ts';
import { defineRoute, type RouteContext, type RouteDefinition, type TokenCaller } from '../http/route.ts';
import { authnErrors } from './authn.ts';
import { personNameField } from './profiles.ts';

export const offerErrors = errorTable<OfferError | 'transfer_failed'>({
  invalid: edgeErrors.invalid,
  offer_not_found: { status: 404, error: 'not_found', description: 'No such offer.' },
  offer_forbidden: { status: 403, error: 'forbidden', description: 'This profile may not do this to the offer.' },
  offer_closed: { status: 400, error: 'closed', description: 'The offer is closed.' },
  offer_not_available: { status: 400, error: 'not_available', description: 'The offer is not valid at this time (not started yet, or expired).' },
  sold_out: { status: 400, error: 'sold_out', description: 'The offer has fewer units left than asked for.' },
  paycard_not_supported: { status: 400, error: 'invalid', description: 'A paycard option cannot be accepted through this call.' },
  confirmation_not_found: { status: 404, error: 'not_found', description: 'No accept waits for this confirmation link (it may have been used or canceled).' },
  named_app_not_found: { status: 400, error: 'invalid', description: 'app_id names no app.' },
  app_not_public: { status: 403, error: 'app_denied', description: 'signup_accept is open to public apps only.' },
  transfer_failed: { status: 503, description: 'The business could not pay; the answer carries the canceled transfer and the stock is returned.' },
});

function raise(failure: OfferFailure | TransferFailed | Failure): never {
  if (failure.error === 'dedup_id_reused') raiseLedger(failure as Failure);
  if (failure.error === 'transfer_failed') {
    const transfer = (failure as TransferFailed).transfer;
    throw httpError(offerErrors, 'transfer_failed', { description: failure.description, fields: transfer ? { transfer } : {} });
  }
  const known = failure as OfferFailure;
  const invalid = known.invalid ? Object.fromEntries(Object.entries(known.invalid)) : undefined;
  throw httpError(offerErrors, known.error, { invalid, description: known.description });
}

/**
 * Each signup_accept makes a profile, so it is throttled per client address and per offer (the
 * route's throttle: 429 with Retry-After); past a couple of calls from one address, each further one
 * needs a solved captcha. The throttle has already counted this call when the captcha is asked.
 */
async function captchaUnderExcess({ engine, input, clientAddress }: RouteContext<z.output<typeof signupAcceptInput>>): Promise<void> {
  const taken = await engine.rateLimits.taken('signup_accept_address', clientAddress);
  if (taken > Math.round(signupAcceptCaptchaAfterCalls * engine.config.rateLimitScale) && !(await engine.services.authn.captchaOk(input['g-recaptcha-response']))) {
    throw httpError(authnErrors, 'captcha_required');
  }
}

function callerOf(context: RouteContext<unknown, TokenCaller>): OfferCaller {
  return { profileId: context.token.profileId, permissions: context.token.permissions, closedLoopOnly: context.token.closedLoopOnly };
}

const empty = z.object({}).strict();
const idList = (field: string) =>
  stringList.pipe(z.array(z.string().regex(/^\d{1,20}$/, `${field} must be ids`)).max(offerFindIdsMax, `takes at most ${offerFindIdsMax} ids`));
const urlField = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(offerUrlCharsMax);
const emailField = z
  .string()
  .trim()
  .max(offerAcceptEmailCharsMax, `must be at most ${offerAcceptEmailCharsMax} characters`)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address')
  .transform((text) => text.toLowerCase());

const optionInput = z
  .object({
    option_id: z.string().regex(new RegExp(`^[A-Za-z0-9_-]{1,${offerOptionIdCharsMax}}$`), `must be 1 to ${offerOptionIdCharsMax} characters of A-Z a-z 0-9 _ -`).optional(),
    payment_type: z.enum(paymentTypes),
    price: amountField.optional(),
  })
  .strict();

const offerFields = {
  title: requiredString(offerTitleCharsMax),
  description: boundedString(offerDescriptionCharsMax),
  amount: amountField,
  quantity: intField(0, offerQuantityMax),
  show_limit: intField(1, offerShowLimitMax),
  options: z.array(optionInput).min(1, 'needs at least one option').max(offerOptionsMax, `takes at most ${offerOptionsMax} options`),
  banner: urlField.nullable(),
  metadata_image: urlField.nullable(),
  metadata_description: boundedString(offerDescriptionCharsMax),
  require_confirmation: boolField,
  chain_id: z.string().regex(/^\d{1,20}$/, 'must be a chain id').nullable(),
  latitude: latitudeField,
  longitude: longitudeField,
  starts_at: timestampField.nullable(),
  expires_at: timestampField.nullable(),
};

const createInput = z
  .object({
    ...offerFields,
    description: offerFields.description.optional(),
    show_limit: offerFields.show_limit.optional(),
    options: offerFields.options.optional(),
    banner: offerFields.banner.optional(),
    metadata_image: offerFields.metadata_image.optional(),
    metadata_description: offerFields.metadata_description.optional(),
    require_confirmation: offerFields.require_confirmation.optional(),
    chain_id: offerFields.chain_id.optional(),
    latitude: offerFields.latitude.optional(),
    longitude: offerFields.longitude.optional(),
    starts_at: offerFields.starts_at.optional(),
    expires_at: offerFields.expires_at.optional(),
    currency: currencyField.optional(),
    design_id: z.string().regex(/^\d{10}$/, 'must be a design id').optional(),
    distribution_plan_id: z.string().regex(/^\d{10}$/, 'must be a plan id').optional(),
  })
  .strict();

const adminCreateInput = createInput.extend({ profile_id: z.string().regex(/^\d{10}$/, 'must be a profile id').optional() }).strict();

const editInput = z
  .object(Object.fromEntries(Object.entries(offerFields).map(([key, schema]) => [key, schema.optional()])) as { [K in keyof typeof offerFields]: z.ZodOptional<(typeof offerFields)[K]> })
  .strict();

const findInput = z
  .object({
    text: boundedString(offerFindTextCharsMax).optional(),
    profile_ids: idList('profile_ids').optional(),
    chain_ids: idList('chain_ids').optional(),
    exclude_offer_ids: idList('exclude_offer_ids').optional(),
    latitude: latitudeField.optional(),
    longitude: longitudeField.optional(),
    max_distance: z
      .union([z.number(), z.string().regex(/^\d{1,9}(\.\d{1,3})?$/, 'must be a distance in metres')])
      .transform((value) => Number(value))
      .pipe(z.number().positive('must be above 0').max(offerFindDistanceMetresMax, `must be at most ${offerFindDistanceMetresMax} metres`))
      .optional(),
    if_require_confirmation: z.enum(['include', 'exclude', 'default', '']).optional(),
    limit: intField(1, offerFindLimitMax).optional(),
    offset: intField(0, offerFindOffsetMax).optional(),
  })
  .strict()
  .superRefine((input, context) => {
    if ((input.latitude === undefined) !== (input.longitude === undefined)) {
      context.addIssue({ code: 'custom', path: [input.latitude === undefined ? 'latitude' : 'longitude'], message: 'latitude and longitude go together' });
    }
    if (input.max_distance !== undefined && input.latitude === undefined) context.addIssue({ code: 'custom', path: ['max_distance'], message: 'needs latitude and longitude' });
  });

const acceptFields = {
  option_id: requiredString(offerOptionIdCharsMax),
  quantity: intField(1, offerShowLimitMax).optional(),
  referrer_id: z.string().regex(/^\d{10}$/, 'must be a profile id').optional(),
  private: boolField.optional(),
  email: emailField.optional(),
};

// MessageRule's fields are not known (supplement 2.16): rules are kept with the transfer as given.
const acceptInput = z
  .object({
    ...acceptFields,
    dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
    message_rules: z.array(z.looseObject({})).max(designMessageRulesMax).optional(),
  })
  .strict();

const pinField = z.string().regex(/^\d{4}$/, 'must be 4 digits');
const mustBeTrue = boolField.refine((value) => value === true, 'must be true');
const signupAcceptInput = z
  .object({
    ...acceptFields,
    first_name: personNameField,
    last_name: personNameField,
    business_name: boundedString(businessNameCharsMax).optional(),
    app_id: z.string().regex(/^\d{1,20}$/, 'must be a client ID'),
    pin: pinField,
    device_name: requiredString(deviceNameCharsMax),
    device_uuid: deviceUuidField,
    agreed_terms_and_privacy: mustBeTrue,
    weekly_offers: boolField.optional(),
    'g-recaptcha-response': boundedString(captchaResponseCharsMax).optional(),
  })
  .strict();

const optionResponse = z.looseObject({ option_id: z.string(), payment_type: z.enum(paymentTypes), price: z.string() });
const offerResponse = z.looseObject({
  id: z.string(), title: z.string(), amount: z.string(), currency: z.string(), loop_id: z.string(), options: z.array(optionResponse), show_limit: z.number(),
  purchases_remain: z.number(), require_confirmation: z.boolean(), banner: z.string().nullable(), metadata_image: z.string().nullable(),
  metadata_description: z.string(), state: z.enum(['open', 'closed']),
});
const loopLinksResponse = z.record(z.string(), z.looseObject({ title: z.string(), thumbnail: z.string().nullable() }));
const transferResponse = z.looseObject({ id: z.string() });
const acceptResponse = z.looseObject({ transfer: transferResponse, confirming: z.boolean(), profile: z.looseObject({}).optional() });

const offerInfoResponse = z.object({ offer: offerResponse, loop_links: loopLinksResponse });

/** The offer a create, edit or close answers; a refusal is raised. */
function offerOf(result: OfferResult<{ offer: Record<string, unknown> }>): Record<string, unknown> {
  if (!result.ok) raise(result);
  return result.offer;
}

/** GET /o/<id>/info and the operator's GET /admin/offers/<id> answer the same. */
async function offerInfo({ engine, params }: RouteContext<unknown>) {
  const result = await engine.services.offers.info(params.offerId);
  if (!result.ok) raise(result);
  return { offer: result.offer, loop_links: result.loopLinks };
}

function acceptAnswer(result: { transfer: Record<string, unknown>; confirming: boolean; profile: Record<string, unknown> | null }) {
  return { transfer: result.transfer, confirming: result.confirming, ...(result.profile ? { profile: result.profile } : {}) };
}

/** GET /o/find takes a token when one is sent (the if_require_confirmation default depends on it). */
async function optionalViewer(context: RouteContext<unknown>): Promise<string | undefined> {
  const raw = readBearerToken(context.request, context.request.query as Record<string, unknown>);
  if (!raw) return undefined;
  const check = await context.engine.services.tokens.authenticate(raw);
  if (!check.ok) throw httpError(edgeErrors, check.error);
  return check.principal.profileId;
}

export const offerRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'get',
    path: '/o/list',
    summary: 'The offers the caller manages (its own, and those paying in designs it may edit), with loop_links.',
    tags: ['offers'],
    caller: { kind: 'token', permission: 'preview_offer' },
    input: empty,
    response: z.object({ offers: z.array(offerResponse), loop_links: loopLinksResponse }),
    async handler(context) {
      const listed = await context.engine.services.offers.list(callerOf(context));
      return { offers: listed.offers, loop_links: listed.loopLinks };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/o/find',
    summary: 'Finds open offers by text, distance and filters; limit and offset count businesses; ordered by distance, else relevance, else title.',
    tags: ['offers'],
    caller: { kind: 'none' },
    errors: [401],
    input: findInput,
    response: z.object({ profiles: z.array(z.looseObject({ id: z.string(), offer_ids: z.array(z.string()) })), offers: z.array(offerResponse), loop_links: loopLinksResponse, more: z.boolean() }),
    async handler(context) {
      const { input } = context;
      const viewerId = await optionalViewer(context);
      const result = await context.engine.services.offers.find({
        text: input.text, profileIds: input.profile_ids, chainIds: input.chain_ids, excludeOfferIds: input.exclude_offer_ids, latitude: input.latitude,
        longitude: input.longitude, maxDistanceMetres: input.max_distance, ifRequireConfirmation: input.if_require_confirmation,
        limit: input.limit ?? offerFindLimitDefault, offset: input.offset ?? 0, viewerId,
      });
      if (!result.ok) raise(result);
      return { profiles: result.profiles, offers: result.offers, loop_links: result.loopLinks, more: result.more };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/o/create',
    summary: "Creates an offer (our call; the spec has none): the business's own token, or edit_design on the paying design.",
    tags: ['offers'],
    caller: { kind: 'token' },
    errors: [403],
    input: createInput,
    response: offerResponse,
    async handler(context) {
      return offerOf(await context.engine.services.offers.create(callerOf(context), context.input));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/offer-confirm/:code',
    summary: 'The link in an offer confirmation email: confirms the email address and completes the waiting accept.',
    tags: ['offers'],
    caller: { kind: 'none' },
    errors: [404, 503],
    input: empty,
    response: z.object({ confirmed: z.boolean(), offer_id: z.string(), transfer: transferResponse }),
    async handler({ engine, params }) {
      const result = await engine.services.offers.confirm(params.code);
      if (!result.ok) raise(result);
      return { confirmed: true, offer_id: result.offerId, transfer: result.transfer };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/o/:offerId/info',
    summary: 'One offer (OfferDetail) and the loops it pays in; no permission needed.',
    tags: ['offers'],
    caller: { kind: 'none' },
    errors: [404],
    input: empty,
    response: offerInfoResponse,
    handler: offerInfo,
  }),

  defineRoute({
    method: 'patch',
    path: '/o/:offerId',
    summary: 'Edits an open offer; a new quantity moves the stock left by the same difference (never below zero).',
    tags: ['offers'],
    caller: { kind: 'token' },
    errors: [403, 404],
    input: editInput,
    response: offerResponse,
    async handler(context) {
      return offerOf(await context.engine.services.offers.edit(callerOf(context), context.params.offerId, context.input));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/o/:offerId/close',
    summary: 'Closes an offer for good; waiting confirmations can still complete.',
    tags: ['offers'],
    caller: { kind: 'token' },
    errors: [403, 404],
    input: empty,
    response: offerResponse,
    async handler(context) {
      return offerOf(await context.engine.services.offers.close(callerOf(context), context.params.offerId));
    },
  }),

  defineRoute({
    method: 'post',
    path: '/o/:offerId/accept',
    summary: 'Accepts an offer: the stock falls and the cash moves in one transaction; 503 with the canceled transfer when the business cannot pay.',
    tags: ['offers'],
    caller: { kind: 'token', permission: 'accept_offer' },
    errors: [403, 404, 409, 503],
    input: acceptInput,
    appdata: true,
    response: acceptResponse,
    async handler(context) {
      const { input } = context;
      const result = await context.engine.services.offers.accept({
        accepterId: context.token.profileId, offerId: context.params.offerId, optionId: input.option_id, quantity: input.quantity ?? 1,
        referrerId: input.referrer_id, private: input.private ?? true, email: input.email, appdata: context.appdata, dedupId: input.dedup_id,
        messageRules: input.message_rules, closedLoopOnly: context.token.closedLoopOnly,
      });
      if (!result.ok) raise(result);
      return acceptAnswer(result);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/o/:offerId/signup_accept',
    summary: 'Signs a person up (public apps only), sets the 4-digit PIN, accepts the offer and answers a token with the signup_accept permissions.',
    tags: ['offers'],
    caller: { kind: 'none' },
    errors: [403, 404, 503],
    input: signupAcceptInput,
    throttle: ({ clientAddress, params }) => [{ bucket: 'signup_accept_address', key: clientAddress }, { bucket: 'signup_accept_offer', key: params.offerId }],
    response: acceptResponse.extend({ token: z.looseObject({ access_token: z.string(), scope: z.string() }).optional() }),
    async handler(context) {
      const { input } = context;
      await captchaUnderExcess(context);
      const result = await context.engine.services.offers.signupAccept({
        clientId: input.app_id, offerId: context.params.offerId, optionId: input.option_id, quantity: input.quantity ?? 1, referrerId: input.referrer_id,
        private: input.private ?? true, email: input.email, firstName: input.first_name, lastName: input.last_name, businessName: input.business_name,
        pin: input.pin, deviceName: input.device_name, deviceUuid: input.device_uuid, weeklyOffers: input.weekly_offers ?? true,
      });
      if (!result.ok) raise(result);
      return { ...acceptAnswer(result), ...(result.token ? { token: result.token } : {}) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/offers',
    summary: 'Operators: offers, newest first, optionally of one business or in one state.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: z.object({ profile_id: z.string().regex(/^\d{10}$/, 'must be a profile id').optional(), state: z.enum(['open', 'closed']).optional() }).strict(),
    response: z.object({ offers: z.array(offerResponse) }),
    async handler({ engine, input }) {
      return { offers: await engine.services.offers.adminList({ profileId: input.profile_id ?? null, state: input.state ?? null }) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/offers',
    summary: 'Operators: creates an offer for a business (profile_id, or the issuer of design_id).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    errors: [403],
    input: adminCreateInput,
    response: offerResponse,
    async handler({ engine, input }) {
      return offerOf(await engine.services.offers.create('operator', input));
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/offers/:offerId',
    summary: 'Operators: one offer.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    errors: [404],
    input: empty,
    response: offerInfoResponse,
    handler: offerInfo,
  }),

  defineRoute({
    method: 'post',
    path: '/admin/offers/:offerId/close',
    summary: 'Operators: closes an offer for good.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    errors: [403, 404],
    input: empty,
    response: offerResponse,
    async handler({ engine, params }) {
      return offerOf(await engine.services.offers.close('operator', params.offerId));
    },
  }),
];
