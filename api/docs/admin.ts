// The operations of api/routes/admin.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { adminErrors } from '../routes/admin.ts';
import { profileErrors } from '../routes/profiles.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const adminDocs: OperationDocs = {
  postAdminApps: {
    description:
      "Creates an app (client): its name, permissions, redirect URIs and site. The answer carries the client secret, shown only this once; a public app has no secret. Operator key (the CLI drives it).",
    example: { name: 'Corner Coffee POS' },
    errors: [],
  },
  getAdminAppsByClientId: {
    description:
      "Reads one app by client id: name, permissions, redirect URIs, site and flags. The secret is never shown again. Operator key (the CLI drives it).",
    example: { clientId: 'app-1' },
    errors: [...pick(adminErrors, 'app_record_not_found')],
  },
  getAdminProfilesByProfileId: {
    description:
      "Reads a profile in full: its ProfileDetail plus site, features, managers, managed profiles and wallet state. The path names the profile by its id or any UID (service:<id>, email:, phone:, username:, or a bare email or +phone), read as the UID fields of the admin calls read them; the CLI resolves every UID it is given here. Operator key (the CLI drives it).",
    example: { profileId: '1234567890' },
    errors: [...pick(profileErrors, 'profile_not_found')],
  },
  patchAdminProfilesByProfileId: {
    description:
      "Sets profile flags: support_paycode, preferred_currency and username (unique; empty or null clears it). Omitted fields stay. Operator key (the CLI drives it).",
    example: { profileId: '1234567890', support_paycode: true },
    errors: [...pick(profileErrors, 'profile_not_found', 'username_taken')],
  },
  postAdminProfilesFeatures: {
    description:
      "Adds one feature to a profile: design_gl (may create gl designs), bill, pull_payment or issue_open_loop. Adding a feature the profile has changes nothing. Operator key (the CLI drives it).",
    example: { profileId: '1234567890', feature: 'bill' },
    errors: [...pick(profileErrors, 'profile_not_found', 'unknown_feature')],
  },
  deleteAdminProfilesFeaturesByFeature: {
    description:
      "Removes one feature from a profile; removing a feature it lacks changes nothing. Operator key (the CLI drives it).",
    example: { profileId: '1234567890', feature: 'bill' },
    errors: [...pick(profileErrors, 'profile_not_found', 'unknown_feature')],
  },
  postAdminProfilesManagers: {
    description:
      "Adds a personal profile (by UID) as a manager of a business, which it may then select with GET /token/select. Operator key (the CLI drives it).",
    example: { profileId: '1234567890', manager_uid: 'pat@example.com' },
    errors: [...pick(profileErrors, 'profile_not_found', 'manager_not_found', 'not_business')],
  },
  putAdminProfilesLocation: {
    description:
      "Sets a business's location in degrees (rounded to six decimals); wallet search then sorts businesses by distance from the caller. Operator key (the CLI drives it).",
    example: { profileId: '1234567890', latitude: 40.7128, longitude: -74.006 },
    errors: [...pick(profileErrors, 'profile_not_found', 'not_business')],
  },
  deleteAdminProfilesLocation: {
    description:
      "Clears a business's location; it then sorts after located businesses in searches. Operator key (the CLI drives it).",
    example: { profileId: '1234567890' },
    errors: [...pick(profileErrors, 'profile_not_found', 'not_business')],
  },
  postAdminProfilesWallet: {
    description:
      "Suspends, unsuspends or closes a profile's wallet. A suspended wallet neither sends nor receives until unsuspended; a closed wallet stays closed. Operator key (the CLI drives it).",
    example: { profileId: '1234567890', action: 'suspend' },
    errors: [...pick(profileErrors, 'profile_not_found', 'wallet_transition_refused')],
  },
  postAdminProfiles: {
    description:
      "Creates an individual profile and its wallet on a site (default: default). A uid (email or phone) the operator vouches for is confirmed at once. Answers the new profile's id and public profile. Operator key (the CLI drives it: cashloop profile create).",
    example: { first_name: 'Pat', last_name: 'Lee', uid: 'pat@example.com' },
    errors: [...pick(profileErrors, 'uid_invalid', 'uid_in_use')],
  },
  postAdminBusinesses: {
    description:
      "Creates a business profile and its wallet, managed by a personal profile of its site (manager_uid: a UID or a profile id), as POST /p/add-business does. Operator key (the CLI drives it: cashloop business create).",
    example: { manager_uid: 'pat@example.com', business_name: 'Corner Coffee', business: { line1: '1 Main St', city: 'Springfield', state: 'IL', country: 'US', zip: '12345' } },
    errors: [...pick(profileErrors, 'manager_not_found')],
  },
};
