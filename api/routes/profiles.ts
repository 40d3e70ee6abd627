// Profile access for server apps (Basic app authentication): add-individual, add-business,
// get-by-uid and /p/token; and the public profile reads: /me, /p/<id>, /wallet/info.
import { accessTokenInfo, featuresAnswer, meProfile, profile, profileWithUids, walletInfo } from '../http/schemas.ts';
import { z } from 'zod';
import type { ProfileAccessError } from '../../engine/profiles/errors.ts';
import { canonicalUidOf, personNameProblem, sanitizeDescription } from '../../engine/profiles/names.ts';
import type { Address } from '../../engine/profiles/service.ts';
import type { TokenPrincipal } from '../../engine/tokens/service.ts';
import {
  addressCityCharsMax,
  addressLineCharsMax,
  addressSuiteCharsMax,
  addressZipCharsMax,
  businessDescriptionCharsMax,
  businessNameCharsMax,
  dbaCharsMax,
  deviceNameCharsMax,
  loginCharsMax,
  profilePhoneCharsMax,
  webSiteCharsMax,
} from '../../engine/limits.ts';
import { edgeErrors, errorTable, httpError } from '../http/errors.ts';
import { boolField, boundedString, deviceUuidField, requiredString, stringList } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import type { EdgeEngine } from '../../engine/engine.ts';

export const profileErrors = errorTable<ProfileAccessError>({
  profile_not_found: { status: 404, error: 'not_found', description: 'No such profile.' },
  uid_not_found: { status: 400, error: 'invalid', description: 'No profile with this UID on the app\'s site.' },
  manager_required: { status: 400, error: 'invalid', description: 'A business needs a managing personal profile (manager_uid).' },
  manager_not_found: { status: 400, error: 'invalid', description: 'No personal profile with this manager UID on the app\'s site.' },
  not_manager: { status: 403, description: 'The personal profile does not manage this profile.' },
  not_available: { status: 403, description: 'The profile is not available.' },
  app_denied: { status: 403, description: 'This app may not act for that profile.' },
  username_taken: { status: 400, error: 'invalid', description: 'The username belongs to another profile.' },
  unknown_feature: { status: 400, error: 'invalid', description: 'No such profile feature.' },
  not_business: { status: 400, description: 'Only a business profile has a location.' },
  wallet_transition_refused: { status: 400, error: 'invalid', description: 'The wallet cannot make that change in its current state.' },
  uid_invalid: { status: 400, error: 'invalid', description: 'The UID is not an email address or a phone number.' },
  uid_in_use: { status: 400, error: 'invalid', description: 'The UID belongs to another profile.' },
});

export const personNameField = z.string().superRefine((text, context) => {
  const problem = personNameProblem(text);
  if (problem) context.addIssue({ code: 'custom', message: problem });
}).transform((text) => text.trim());

const countryField = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter uppercase country code');
const stateField = z.string().regex(/^[A-Z]{2}$/, 'must be 2 capital letters');

/** The business and mail address object of POST /p/add-business. */
export const businessAddressField = z
  .object({
    public: boolField.optional(),
    line1: requiredString(addressLineCharsMax),
    line2: boundedString(addressLineCharsMax).optional(),
    suite: boundedString(addressSuiteCharsMax).optional(),
    city: requiredString(addressCityCharsMax),
    country: countryField,
    state: stateField.optional(),
    zip: requiredString(addressZipCharsMax),
  })
  .strict()
  .superRefine((address, context) => {
    if (address.country === 'US' && !address.state) context.addIssue({ code: 'custom', path: ['state'], message: 'is required in the US' });
  });

/** The optional home address of POST /p/add-individual; the state stays blank outside the USA. */
export const homeAddressField = z
  .object({
    line1: boundedString(addressLineCharsMax).optional(),
    line2: boundedString(addressLineCharsMax).optional(),
    apartment: boundedString(addressSuiteCharsMax).optional(),
    city: boundedString(addressCityCharsMax).optional(),
    country: countryField.optional(),
    state: z.union([stateField, z.literal('')]).optional(),
    zip: boundedString(addressZipCharsMax).optional(),
  })
  .strict()
  .superRefine((address, context) => {
    if (address.state && address.country && address.country !== 'US') context.addIssue({ code: 'custom', path: ['state'], message: 'must be blank outside the USA' });
  });

const mustBeTrue = boolField.refine((value) => value === true, 'must be true');

const addIndividualInput = z
  .object({
    first_name: personNameField,
    last_name: personNameField,
    business_name: boundedString(businessNameCharsMax).optional(),
    agreed_terms_and_privacy: mustBeTrue,
    accepted_policy: boolField.optional(),
    weekly_offers: boolField.optional(),
    phone: boundedString(profilePhoneCharsMax).optional(),
    home: homeAddressField.optional(),
  })
  .strict();

export const addBusinessInput = z
  .object({
    manager_uid: boundedString(loginCharsMax).optional(),
    business_name: requiredString(businessNameCharsMax),
    dba: boundedString(dbaCharsMax).optional(),
    web_site: boundedString(webSiteCharsMax).optional(),
    description_html: boundedString(businessDescriptionCharsMax).nullable().optional(),
    business: businessAddressField,
    mail: businessAddressField,
    phone: boundedString(profilePhoneCharsMax).optional(),
    phone_public: boolField.optional(),
  })
  .strict();

const getByUidInput = z.object({ uid: requiredString(loginCharsMax) }).strict();

const profileTokenInput = z
  .object({
    uid: requiredString(loginCharsMax),
    manager_uid: boundedString(loginCharsMax).optional(),
    concurrent: boolField.optional(),
    device_name: boundedString(deviceNameCharsMax).optional(),
    device_uuid: deviceUuidField.optional(),
    permissions: stringList.optional(),
  })
  .strict();

const empty = z.object({}).strict();

/** Features an app may switch for its site's profiles; the right to issue open loop cash stays the operator's. */
export const appSwitchableFeatures = ['design_gl', 'bill', 'pull_payment'] as const;

const featuresPatchInput = z
  .object(Object.fromEntries(appSwitchableFeatures.map((feature) => [feature, boolField.optional()])) as Record<(typeof appSwitchableFeatures)[number], z.ZodOptional<typeof boolField>>)
  .strict();

/** GET /wallet/info, which GET /wallet/finish-invite extends. */
export async function walletInfoHandler({ engine, token }: { engine: EdgeEngine; token: TokenPrincipal }): Promise<Record<string, unknown>> {
  const info = await engine.services.profileAccess.walletInfo(token);
  if (!info) throw fail('profile_not_found');
  return info;
}

function fail(code: ProfileAccessError, invalid?: Record<string, string>) {
  return httpError(profileErrors, code, invalid ? { invalid } : {});
}

export const profileRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/p/add-individual',
    summary: 'Creates an individual profile (and its wallet) on the app\'s site.',
    tags: ['profile access'],
    caller: { kind: 'app', appPermission: 'create_profile' },
    input: addIndividualInput,
    response: z.strictObject({ id: z.string(), profile }),
    async handler({ input, engine, app }) {
      const record = await engine.services.profileAccess.addIndividual(app.site, {
        firstName: input.first_name,
        lastName: input.last_name,
        confirmedUids: [],
        businessName: input.business_name?.trim() || null,
        phone: input.phone ?? null,
        home: (input.home as Address | undefined) ?? null,
        acceptedPolicy: input.accepted_policy ?? false,
        weeklyOffers: input.weekly_offers ?? true,
      });
      return { id: record.id, profile: engine.services.profiles.toPublic(record) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/p/add-business',
    summary: 'Creates a business profile (and its wallet) managed by a personal profile of the app\'s site.',
    tags: ['profile access'],
    caller: { kind: 'app', appPermission: 'create_profile' },
    input: addBusinessInput,
    response: z.strictObject({ id: z.string(), profile }),
    async handler({ input, engine, app }) {
      const description = input.description_html ? sanitizeDescription(input.description_html) : null;
      const outcome = await engine.services.profileAccess.addBusiness(app.site, input.manager_uid, {
        businessName: input.business_name,
        dba: input.dba?.trim() || null,
        webSite: input.web_site?.trim() || null,
        descriptionHtml: description || null,
        business: input.business,
        mail: input.mail,
        phone: input.phone ?? null,
        phonePublic: input.phone_public ?? false,
      });
      if (!outcome.ok) throw fail(outcome.error, outcome.invalid);
      return { id: outcome.profile.id, profile: engine.services.profiles.toPublic(outcome.profile) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/p/get-by-uid',
    summary: 'Looks a profile up by UID on the app\'s site; an object without profile when not found.',
    tags: ['profile access'],
    caller: { kind: 'app', appPermission: 'get_profile' },
    input: getByUidInput,
    response: z.strictObject({ profile: profileWithUids.optional() }),
    async handler({ input, engine, app }) {
      if (!canonicalUidOf(input.uid)) throw httpError(edgeErrors, 'invalid', { invalid: { uid: 'must be an email, E.164 phone, username or profile ID' } });
      const found = await engine.services.profileAccess.getByUid(input.uid, app.site);
      if (!found) return {};
      return { profile: { ...engine.services.profiles.toPublic(found.profile), confirmed_uids: found.uids.map((uid) => ({ uid })) } };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/p/token',
    summary: 'Issues a closed-loop token for a profile of the app\'s site (a business needs manager_uid).',
    tags: ['profile access'],
    caller: { kind: 'app', appPermission: 'control_profile' },
    input: profileTokenInput,
    response: accessTokenInfo,
    errors: [403],
    async handler({ input, engine, app, now }) {
      const outcome = await engine.services.profileAccess.issueProfileToken(app, {
        uid: input.uid,
        managerUid: input.manager_uid,
        deviceUuid: input.device_uuid,
        deviceName: input.device_name,
        permissions: input.permissions,
        concurrent: input.concurrent,
      }, now);
      if (!outcome.ok) throw fail(outcome.error, outcome.invalid);
      return outcome.token;
    },
  }),

  defineRoute({
    method: 'get',
    path: '/p/:profileId/features',
    summary: 'The features of a profile of the app\'s site.',
    tags: ['profile access'],
    caller: { kind: 'app', appPermission: 'control_profile' },
    input: empty,
    response: featuresAnswer,
    errors: [404],
    async handler({ params, engine, app }) {
      const features = await engine.services.profileAccess.siteFeatures(params.profileId, app.site);
      if (!features) throw fail('profile_not_found');
      return { features };
    },
  }),

  defineRoute({
    method: 'patch',
    path: '/p/:profileId/features',
    summary: 'Enables (true) or disables (false) design_gl, bill and pull_payment for a profile of the app\'s site.',
    tags: ['profile access'],
    caller: { kind: 'app', appPermission: 'control_profile' },
    input: featuresPatchInput,
    response: featuresAnswer,
    errors: [404],
    async handler({ params, input, engine, app }) {
      const wanted = Object.fromEntries(appSwitchableFeatures.map((feature) => [feature, input[feature]]));
      const features = await engine.services.profileAccess.switchSiteFeatures(params.profileId, app.site, wanted);
      if (!features) throw fail('profile_not_found');
      return { features };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/me',
    summary: 'Public information about the authenticated profile.',
    tags: ['wallet'],
    caller: { kind: 'token' },
    input: empty,
    response: meProfile,
    errors: [404],
    async handler({ engine, token }) {
      const record = await engine.services.profileAccess.get(token.profileId);
      if (!record) throw fail('profile_not_found');
      return engine.services.profiles.toMe(record);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/p/:profileId',
    summary: 'Public information about a profile.',
    tags: ['wallet'],
    caller: { kind: 'none' },
    input: empty,
    response: profile,
    errors: [404],
    async handler({ engine, params }) {
      const record = await engine.services.profileAccess.get(params.profileId);
      if (!record) throw fail('profile_not_found');
      return engine.services.profiles.toPublic(record);
    },
  }),

  defineRoute({
    method: 'get',
    path: '/wallet/info',
    summary: 'The wallet: profile (ProfileDetail), related profiles, and personal_profile when a business was selected.',
    tags: ['wallet'],
    caller: { kind: 'token', permission: 'view_wallet' },
    input: empty,
    alsoPost: true,
    response: walletInfo,
    errors: [404],
    handler: walletInfoHandler,
  }),
];
