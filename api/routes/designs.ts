// Cash designs: create, list, read, edit and delete designs; distribution plans; network
// agreements; the redeemers list. Each handler parses, makes one engine call and maps the result.
import { posDeviceOf } from '../../engine/designs/redemption.ts';
import { z } from 'zod';
import type { DesignError, DesignFailure } from '../../engine/designs/errors.ts';
import { designTypes } from '../../engine/designs/service.ts';
import {
  agreementRemoveIdsMax, agreementTermsLinkCharsMax, agreementTermsTextCharsMax, dedupIdCharsMax, designDescriptionCharsMax,
  designExpireRelativeDaysMax, designMessageCharsMax, designMessageRulesMax, designTitleCharsMax, emailCharsMin, idCharsMax, loginCharsMax,
  mediaIdCharsMax, personNameCharsMax, planRecipientsMax, planTitleCharsMax,
} from '../../engine/limits.ts';
import { appdataChars } from '../../engine/transfers/service.ts';
import { appdataCharsMax } from '../../engine/limits.ts';
import { errorTable, httpError } from '../http/errors.ts';
import { amountField, boolField, boundedString, currencyField, intField, requiredString, stringList, timestampField } from '../http/fields.ts';
import { edgeErrors } from '../http/errors.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import type { Failure } from '../../engine/ledger/errors.ts';
import { raise as raiseLedger } from './ledger-errors.ts';
import { transferDetailFor } from './transfers.ts';

export const designErrors = errorTable<DesignError>({
  invalid: edgeErrors.invalid,
  design_not_found: { status: 404, error: 'not_found', description: 'No such design (or it is not visible to this profile).' },
  design_forbidden: { status: 403, error: 'forbidden', description: 'This profile may not do this to the design.' },
  feature_required: { status: 403, error: 'feature_required', description: 'The profile lacks the feature this design type needs.' },
  design_published: { status: 400, error: 'published', description: 'A published design cannot be deleted.' },
  plan_not_found: { status: 404, error: 'not_found', description: 'No such distribution plan on this design.' },
  agreement_not_found: { status: 404, error: 'not_found', description: 'No such agreement on this design.' },
  not_member: { status: 403, error: 'forbidden', description: 'Only the member named in the agreement (or, to deactivate, a network owner) may do this.' },
  member_not_found: { status: 400, error: 'invalid', description: 'The uid names no profile.' },
  expiry_in_past: { status: 400, error: 'expiry_in_past', description: 'An absolute expiry must be in the future: cash issued under it would expire at once.' },
});

/** Throws the mapped HTTP error of a design refusal. */
export function raise(failure: DesignFailure): never {
  throw httpError(designErrors, failure.error, { invalid: failure.invalid, description: failure.description });
}

function designIdOf(params: Record<string, string>): string {
  return params.designId;
}

const empty = z.object({}).strict();
const designResponse = z.looseObject({
  id: z.string(), title: z.string(), currency: z.string(), type: z.enum(designTypes), issuer_id: z.string(), published: z.boolean(),
  permissions: z.array(z.string()),
});
const agreementResponse = z.looseObject({ id: z.string(), member_id: z.string(), state: z.enum(['inactive', 'active', 'deactivated', 'removed']) });

export const createInput = z
  .object({
    title: requiredString(designTitleCharsMax),
    currency: currencyField,
    design_type: z.enum(designTypes),
  })
  .strict();

const nullableString = (max: number) => z.string().max(max, `must be at most ${max} characters`).nullable();
const patchInput = z
  .object({
    title: requiredString(designTitleCharsMax).optional(),
    description_html: nullableString(designDescriptionCharsMax).optional(),
    multiple_images: boolField.optional(),
    waves: boolField.optional(),
    transferable: boolField.optional(),
    // An empty string clears the limit, as null does.
    max_per_wallet: z.union([z.literal('').transform(() => null), amountField]).nullable().optional(),
    designer_id: nullableString(idCharsMax).optional(),
    featured_id: nullableString(idCharsMax).optional(),
    expire: z
      .object({
        mode: z.enum(['absolute', 'relative']).nullable(),
        absolute: timestampField.nullable().optional(),
        relative: intField(1, designExpireRelativeDaysMax).nullable().optional(),
      })
      .strict()
      .optional(),
    email_freq: z.enum(['daily', 'weekly', 'weekly2', 'monthly']).nullable().optional(),
    generic_provider: boolField.optional(),
    icon: z.object({ media_id: nullableString(mediaIdCharsMax).optional(), style: z.enum(['fit', 'zoom']).optional() }).strict().optional(),
  })
  .strict();

const planCreateInput = z.object({ title: requiredString(planTitleCharsMax) }).strict();
const planRecipient = z
  .object({
    percentage: z.union([z.string(), z.number()]).transform((value) => String(value)),
    loop_id: z.union([z.string(), z.number()]).transform((value) => String(value)),
    recipient_type: z.enum(['discount', 'static', 'redeemer']),
    recipient_id: z.union([z.string(), z.number()]).transform((value) => String(value)),
  })
  .strict();
const planPatchInput = z
  .object({
    title: requiredString(planTitleCharsMax).optional(),
    recipients: z.array(planRecipient).max(planRecipientsMax, `takes at most ${planRecipientsMax} rows`).optional(),
  })
  .strict();

export const agreementAddInput = z
  .object({
    uid: requiredString(loginCharsMax),
    redeemer: boolField.optional(),
    distributor: boolField.optional(),
    settler: boolField.optional(),
    terms_text: requiredString(agreementTermsTextCharsMax),
    terms_link: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(agreementTermsLinkCharsMax).optional(),
  })
  .strict()
  .refine((input) => input.redeemer || input.distributor || input.settler, { message: 'name at least one role: redeemer, distributor or settler', path: ['redeemer'] });

const agreementRemoveInput = z.object({ ids: stringList.pipe(z.array(z.string()).min(1, 'is required').max(agreementRemoveIdsMax)) }).strict();

// MessageRule's fields are not known (supplement 8.4): rules are kept with the transfer as given.
const messageRule = z.looseObject({});
const sendInput = z
  .object({
    recipient_uid: requiredString(loginCharsMax),
    distribution_plan_id: requiredString(idCharsMax),
    amount: amountField,
    sender_uid: boundedString(loginCharsMax, 1).optional(),
    message: boundedString(designMessageCharsMax).optional(),
    private: boolField.optional(),
    require_recipient_email: boolField.optional(),
    dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
    message_rules: z.array(messageRule).max(designMessageRulesMax).optional(),
  })
  .strict();

const billInput = z
  .object({
    amount: amountField,
    distribution_plan_id: requiredString(idCharsMax),
    sender_uid: boundedString(loginCharsMax, 1).optional(),
    profile_creation_data: z
      .object({ first_name: requiredString(personNameCharsMax), last_name: requiredString(personNameCharsMax), email: boundedString(loginCharsMax, emailCharsMin).optional() })
      .strict()
      .optional(),
    message: boundedString(designMessageCharsMax).optional(),
    private: boolField.optional(),
    dedup_id: boundedString(dedupIdCharsMax, 1).optional(),
    message_rules: z.array(messageRule).max(designMessageRulesMax).optional(),
  })
  .strict();

/** Design sends and bills leave appdata's size to the edge (the other send paths check it in the engine). */
function assertAppdataFits(appdata: Record<string, string>): void {
  if (appdataChars(appdata) > appdataCharsMax) throw httpError(edgeErrors, 'invalid', { invalid: { appdata: `must total at most ${appdataCharsMax} characters` } });
}

function raiseEither(failure: Failure | DesignFailure): never {
  if (failure.error in designErrors) raise(failure as DesignFailure);
  raiseLedger(failure as Failure);
}

export const designRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/design/:designId/bill',
    summary: 'Bills a customer for brand cash of a gl_design (merchants with the bill feature); the bill waits up to 14 days for payment.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'apply_design' },
    errors: [409],
    input: billInput,
    appdata: true,
    response: z.looseObject({ transfer: z.looseObject({ id: z.string() }) }),
    async handler({ engine, token, params, input, appdata }) {
      assertAppdataFits(appdata);
      const result = await engine.services.bills.create({
        callerId: token.profileId, designId: designIdOf(params), amount: input.amount, planId: input.distribution_plan_id, senderUid: input.sender_uid,
        profileCreationData: input.profile_creation_data, message: input.message, private: input.private ?? true, appdata, dedupId: input.dedup_id,
        closedLoopOnly: token.closedLoopOnly,
      });
      if (!result.ok) raiseEither(result);
      return transferDetailFor({ engine, token }, result.transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/design/:designId/send',
    summary: 'Issues brand cash of a gl_design to a recipient under a distribution plan (issuer or active distributor).',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'apply_design' },
    errors: [409],
    input: sendInput,
    appdata: true,
    response: z.looseObject({ transfer: z.looseObject({ id: z.string() }) }),
    async handler({ engine, token, params, input, appdata }) {
      assertAppdataFits(appdata);
      const result = await engine.services.circulation.send({
        callerId: token.profileId, designId: designIdOf(params), recipientUid: input.recipient_uid, planId: input.distribution_plan_id, amount: input.amount,
        senderUid: input.sender_uid, message: input.message, private: input.private ?? true, requireRecipientEmail: input.require_recipient_email ?? false,
        appdata, dedupId: input.dedup_id, closedLoopOnly: token.closedLoopOnly,
        posDevice: posDeviceOf(token),
      });
      if (!result.ok) raiseEither(result);
      return transferDetailFor({ engine, token }, result.transferId);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/design/create',
    summary: 'Creates a cash design (gl_design needs the design_gl feature; open_design an open loop issuer). The new design has no image.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'create_design' },
    input: createInput,
    response: designResponse,
    async handler({ engine, token, input }) {
      const result = await engine.services.designs.create({ profileId: token.profileId }, { title: input.title, currency: input.currency, designType: input.design_type });
      if (!result.ok) raise(result);
      return result.design;
    },
  }),

  defineRoute({
    method: 'get',
    path: '/design',
    summary: 'Designs on which this profile was explicitly granted view_design.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'view_design' },
    input: empty,
    response: z.object({ designs: z.array(designResponse) }),
    async handler({ engine, token }) {
      return { designs: await engine.services.designs.list({ profileId: token.profileId }) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/design/:designId',
    summary: 'One design: everyone may view a published design; plans need edit_design, agreements view_design_network.',
    tags: ['designs'],
    caller: { kind: 'token' },
    input: empty,
    response: designResponse,
    async handler({ engine, token, params }) {
      const result = await engine.services.designs.get({ profileId: token.profileId }, designIdOf(params));
      if (!result.ok) raise(result);
      return result.design;
    },
  }),

  defineRoute({
    method: 'patch',
    path: '/design/:designId',
    summary: 'Changes design fields; omitted fields stay, null or empty clears where the spec says so.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'edit_design' },
    input: patchInput,
    response: designResponse,
    async handler({ engine, token, params, input }) {
      const result = await engine.services.designs.patch({ profileId: token.profileId }, designIdOf(params), input);
      if (!result.ok) raise(result);
      return result.design;
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/design/:designId',
    summary: 'Deletes an unpublished design (400 when published, 404 when already deleted).',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'manage_design' },
    input: empty,
    response: z.object({}),
    async handler({ engine, token, params }) {
      const result = await engine.services.designs.remove({ profileId: token.profileId }, designIdOf(params));
      if (!result.ok) raise(result);
      return {};
    },
  }),

  defineRoute({
    method: 'post',
    path: '/design/:designId/plan/create',
    summary: 'Creates a distribution plan; default terms: the redeemer gets open loop settlement equal to the brand cash it receives.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'edit_design' },
    input: planCreateInput,
    response: z.object({ plan_id: z.string() }),
    async handler({ engine, token, params, input }) {
      const result = await engine.services.designs.createPlan({ profileId: token.profileId }, designIdOf(params), input.title);
      if (!result.ok) raise(result);
      return { plan_id: result.planId };
    },
  }),

  defineRoute({
    method: 'patch',
    path: '/design/:designId/plan/:planId',
    summary: "Changes a plan's title or recipients table; answers the updated CashDesign.",
    tags: ['designs'],
    caller: { kind: 'token', permission: 'edit_design' },
    input: planPatchInput,
    response: designResponse,
    async handler({ engine, token, params, input }) {
      const result = await engine.services.designs.patchPlan({ profileId: token.profileId }, designIdOf(params), params.planId, input);
      if (!result.ok) raise(result);
      return result.design;
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/design/:designId/plan/:planId',
    summary: 'Deletes a plan; answers the updated CashDesign (404 when already deleted).',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'edit_design' },
    input: empty,
    response: designResponse,
    async handler({ engine, token, params }) {
      const result = await engine.services.designs.deletePlan({ profileId: token.profileId }, designIdOf(params), params.planId);
      if (!result.ok) raise(result);
      return result.design;
    },
  }),

  defineRoute({
    method: 'post',
    path: '/design/:designId/agreement/add',
    summary: 'Adds a network agreement (inactive until its member activates it; active at once for the owner itself); the member is told by message.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'add_agreement' },
    input: agreementAddInput,
    response: z.object({ agreement: agreementResponse, agreements: z.array(agreementResponse) }),
    async handler({ engine, token, params, input }) {
      const result = await engine.services.designs.addAgreement({ profileId: token.profileId }, designIdOf(params), {
        uid: input.uid, redeemer: input.redeemer ?? false, distributor: input.distributor ?? false, settler: input.settler ?? false,
        termsText: input.terms_text, termsLink: input.terms_link ?? null,
      });
      if (!result.ok) raise(result);
      return { agreement: result.agreement, agreements: result.agreements };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/design/:designId/agreement/remove',
    summary: 'Removes agreements by id; removals the caller may not make are skipped silently. Answers the updated list.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'remove_agreement' },
    input: agreementRemoveInput,
    response: z.object({ agreements: z.array(agreementResponse) }),
    async handler({ engine, token, params, input }) {
      const result = await engine.services.designs.removeAgreements({ profileId: token.profileId }, designIdOf(params), input.ids);
      if (!result.ok) raise(result);
      return { agreements: result.agreements };
    },
  }),

  ...(['activate', 'deactivate'] as const).map((change) =>
    defineRoute({
      method: 'post',
      path: `/design/:designId/agreement/:agreementId/${change}`,
      summary: change === 'activate' ? 'The member named in the agreement activates it (after formally agreeing).' : 'A network owner or the member deactivates the agreement.',
      tags: ['designs'],
      caller: { kind: 'token', permission: `${change}_agreement` },
      input: empty,
      response: z.object({ agreement: agreementResponse }),
      async handler({ engine, token, params }) {
        const result = await engine.services.designs.changeAgreement({ profileId: token.profileId }, designIdOf(params), params.agreementId, change);
        if (!result.ok) raise(result);
        return { agreement: result.agreement };
      },
    }),
  ),

  defineRoute({
    method: 'get',
    path: '/design/:designId/redeemers',
    summary: 'Profiles with an active redeemer agreement (at most 100).',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'view_design' },
    input: empty,
    response: z.array(z.looseObject({ id: z.string(), title: z.string() })),
    async handler({ engine, token, params }) {
      const result = await engine.services.designs.redeemers({ profileId: token.profileId }, designIdOf(params));
      if (!result.ok) raise(result);
      return result.profiles;
    },
  }),
];
