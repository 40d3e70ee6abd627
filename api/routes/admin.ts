// The operator admin API (Bearer operator key): apps, profile features, profile flags, wallets,
// managers, business locations and profile reads. The CLI is its client.
import { featuresAnswer, profile, profileDetail } from '../http/schemas.ts';
import { z } from 'zod';
import { appPermissionNames } from '../../engine/apps/service.ts';
import { knownPermissions } from '../../engine/tokens/service.ts';
import { appNameCharsMax, appSiteCharsMax, loginCharsMax, redirectUriCharsMax, redirectUrisMax } from '../../engine/limits.ts';
import { sanitizeDescription, usernamePattern } from '../../engine/profiles/names.ts';
import { profileFeatureNames } from '../../engine/profiles/service.ts';
import { errorTable, httpError } from '../http/errors.ts';
import { boolField, currencyField, latitudeField, longitudeField, requiredString, stringList } from '../http/fields.ts';
import { defineRoute, type RouteDefinition } from '../http/route.ts';
import { addBusinessInput, businessAddressField, personNameField, profileErrors } from './profiles.ts';
import { pathProfileIdOf } from './ledger-admin.ts';

type AdminError = 'app_record_not_found';
export const adminErrors = errorTable<AdminError>({
  app_record_not_found: { status: 404, error: 'not_found', description: 'No such app.' },
});

const siteField = requiredString(appSiteCharsMax).regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . -');

const createAppInput = z
  .object({
    name: requiredString(appNameCharsMax),
    permissions: stringList
      .pipe(z.array(z.enum(appPermissionNames, { message: `must be among ${appPermissionNames.join(', ')}` })))
      .optional(),
    redirect_uris: stringList.pipe(z.array(z.string().url('must be a URL').max(redirectUriCharsMax)).max(redirectUrisMax)).optional(),
    site: siteField.optional(),
    public: boolField.optional(),
    implicit_grant: boolField.optional(),
    // User permissions the app may request beyond the default send-and-receive set.
    user_permissions: stringList
      .pipe(z.array(z.string().refine((name) => knownPermissions.includes(name), { message: 'must be a user permission name (see docs/decisions.md)' })))
      .optional(),
  })
  .strict();

const createIndividualInput = z
  .object({
    first_name: personNameField,
    last_name: personNameField,
    // An email address or phone number the operator vouches for: confirmed at once.
    uid: requiredString(loginCharsMax).optional(),
    site: siteField.optional(),
  })
  .strict();

// As POST /p/add-business, on a site the operator names; the mail address defaults to the business address.
const createBusinessInput = addBusinessInput.extend({ manager_uid: requiredString(loginCharsMax), mail: businessAddressField.optional(), site: siteField.optional() }).strict();

const featureInput = z.object({ feature: z.enum(profileFeatureNames, { message: `must be one of ${profileFeatureNames.join(', ')}` }) }).strict();

const flagsInput = z
  .object({
    support_paycode: boolField.optional(),
    preferred_currency: z.union([currencyField, z.literal('')]).optional(),
    username: z.union([z.string().regex(usernamePattern, 'must start with a letter; letters, digits, _ . - up to 100'), z.literal(''), z.null()]).optional(),
  })
  .strict();

const locationInput = z.object({ latitude: latitudeField, longitude: longitudeField }).strict();
const walletInput = z.object({ action: z.enum(['suspend', 'unsuspend', 'close']) }).strict();
const managerInput = z.object({ manager_uid: requiredString(loginCharsMax) }).strict();
const empty = z.object({}).strict();

export const defaultSite = 'default';

function appView(app: { clientId: string; name: string; site: string; permissions: string[]; redirectUris: string[]; isPublic: boolean; implicitGrant: boolean; userPermissions: string[] }) {
  return {
    client_id: app.clientId,
    name: app.name,
    site: app.site,
    permissions: app.permissions,
    redirect_uris: app.redirectUris,
    public: app.isPublic,
    implicit_grant: app.implicitGrant,
    user_permissions: app.userPermissions,
  };
}

const appAnswer = z.strictObject({
  client_id: z.string(),
  name: z.string(),
  site: z.string(),
  permissions: z.array(z.string()),
  redirect_uris: z.array(z.string()),
  public: z.boolean(),
  implicit_grant: z.boolean(),
  user_permissions: z.array(z.string()),
});

export const adminRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'post',
    path: '/admin/apps',
    summary: 'Creates an app; the answer carries the client secret, shown only once.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: createAppInput,
    response: appAnswer.extend({ client_secret: z.string() }),
    async handler({ input, engine }) {
      const { apps } = engine.services;
      const created = await apps.create({
        name: input.name,
        permissions: input.permissions ?? [],
        redirectUris: input.redirect_uris ?? [],
        site: input.site ?? defaultSite,
        isPublic: input.public ?? false,
        implicitGrant: input.implicit_grant ?? false,
        userPermissions: input.user_permissions ?? [],
      });
      const app = await apps.get(created.clientId);
      return { ...appView(app!), client_secret: created.clientSecret };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/apps/:clientId',
    summary: 'Reads an app (never its secret).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: appAnswer,
    errors: [404],
    async handler({ engine, params }) {
      const app = await engine.services.apps.get(params.clientId);
      if (!app) throw httpError(adminErrors, 'app_record_not_found');
      return appView(app);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/profiles',
    summary: 'Creates an individual profile (and its wallet) on a site (default: default), with a confirmed email or phone UID when given.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: createIndividualInput,
    response: z.strictObject({ id: z.string(), profile }),
    async handler({ input, engine }) {
      const outcome = await engine.services.profileAccess.adminAddIndividual(input.site ?? defaultSite, { firstName: input.first_name, lastName: input.last_name, uid: input.uid });
      if (!outcome.ok) throw httpError(profileErrors, outcome.error, outcome.invalid ? { invalid: outcome.invalid } : {});
      return { id: outcome.profile.id, profile: engine.services.profiles.toPublic(outcome.profile) };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/businesses',
    summary: 'Creates a business profile (and its wallet) managed by a personal profile of its site (manager_uid: a UID or a profile id).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: createBusinessInput,
    response: z.strictObject({ id: z.string(), profile }),
    async handler({ input, engine }) {
      const outcome = await engine.services.profileAccess.addBusiness(input.site ?? defaultSite, input.manager_uid, {
        businessName: input.business_name,
        dba: input.dba?.trim() || null,
        webSite: input.web_site?.trim() || null,
        descriptionHtml: input.description_html ? sanitizeDescription(input.description_html) || null : null,
        business: input.business,
        mail: input.mail ?? input.business,
        phone: input.phone ?? null,
        phonePublic: input.phone_public ?? false,
      });
      if (!outcome.ok) throw httpError(profileErrors, outcome.error, outcome.invalid ? { invalid: outcome.invalid } : {});
      return { id: outcome.profile.id, profile: engine.services.profiles.toPublic(outcome.profile) };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/admin/profiles/:profileId',
    summary: 'Reads a profile named by its id or any UID (service:, email:, phone:, username:, or a bare id, email or +phone): ProfileDetail plus site, features, managers, managed profiles and wallet state.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: z.strictObject({ profile: profileDetail, site: z.string(), features: z.array(z.string()), managers: z.array(z.string()), managed: z.array(z.string()), wallet_state: z.string().nullable() }),
    errors: [404],
    async handler({ engine, params }) {
      const view = await engine.services.profileAccess.adminView(await pathProfileIdOf(engine, params.profileId));
      if (!view) throw httpError(profileErrors, 'profile_not_found');
      return view;
    },
  }),

  defineRoute({
    method: 'patch',
    path: '/admin/profiles/:profileId',
    summary: 'Sets profile flags: support_paycode, preferred_currency, username (empty or null clears).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: flagsInput,
    response: profile,
    errors: [404],
    async handler({ input, engine, params }) {
      const outcome = await engine.services.profileAccess.setFlags(params.profileId, {
        supportPaycode: input.support_paycode,
        preferredCurrency: input.preferred_currency,
        username: input.username === undefined ? undefined : input.username || null,
      });
      if (!outcome.ok) throw httpError(profileErrors, outcome.error, outcome.invalid ? { invalid: outcome.invalid } : {});
      return engine.services.profiles.toPublic(outcome.profile);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/profiles/:profileId/features',
    summary: 'Adds a profile feature (design_gl, bill, pull_payment, issue_open_loop).',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: featureInput,
    response: featuresAnswer,
    errors: [404],
    async handler({ input, engine, params }) {
      const features = await engine.services.profileAccess.addFeature(params.profileId, input.feature);
      if (!features) throw httpError(profileErrors, 'profile_not_found');
      return { features };
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/admin/profiles/:profileId/features/:feature',
    summary: 'Removes a profile feature.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: featuresAnswer,
    errors: [404],
    async handler({ engine, params }) {
      const features = await engine.services.profileAccess.removeFeature(params.profileId, params.feature);
      if (!features) throw httpError(profileErrors, 'profile_not_found');
      return { features };
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/profiles/:profileId/managers',
    summary: 'Adds a managing personal profile to a business.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: managerInput,
    response: z.strictObject({ managers: z.array(z.string()) }),
    errors: [404],
    async handler({ input, engine, params }) {
      const outcome = await engine.services.profileAccess.addManager(params.profileId, input.manager_uid);
      if (!outcome.ok) throw httpError(profileErrors, outcome.error, outcome.invalid ? { invalid: outcome.invalid } : {});
      return { managers: outcome.managers };
    },
  }),

  defineRoute({
    method: 'put',
    path: '/admin/profiles/:profileId/location',
    summary: 'Sets a business\'s location (degrees, rounded to six decimals); it sorts search by distance.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: locationInput,
    response: profile,
    errors: [404],
    async handler({ input, engine, params }) {
      const outcome = await engine.services.profileAccess.setLocation(params.profileId, input);
      if (!outcome.ok) throw httpError(profileErrors, outcome.error);
      return engine.services.profiles.toPublic(outcome.profile);
    },
  }),

  defineRoute({
    method: 'delete',
    path: '/admin/profiles/:profileId/location',
    summary: 'Clears a business\'s location.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: empty,
    response: profile,
    errors: [404],
    async handler({ engine, params }) {
      const outcome = await engine.services.profileAccess.setLocation(params.profileId, null);
      if (!outcome.ok) throw httpError(profileErrors, outcome.error);
      return engine.services.profiles.toPublic(outcome.profile);
    },
  }),

  defineRoute({
    method: 'post',
    path: '/admin/profiles/:profileId/wallet',
    summary: 'Suspends, unsuspends or closes a wallet.',
    tags: ['admin'],
    caller: { kind: 'operator' },
    input: walletInput,
    response: z.strictObject({ wallet_state: z.string() }),
    errors: [404],
    async handler({ input, engine, params }) {
      const outcome = await engine.services.profileAccess.changeWallet(params.profileId, input.action);
      if (!outcome.ok) throw httpError(profileErrors, outcome.error);
      return { wallet_state: outcome.state };
    },
  }),
];
