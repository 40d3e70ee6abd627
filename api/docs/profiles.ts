// The operations of api/routes/profiles.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { profileErrors } from '../routes/profiles.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const profileDocs: OperationDocs = {
  postProfileAddIndividual: {
    description:
      "A server app creates an individual profile, and its wallet, on the app's own site, without any UID: the person can later sign in through an invitation or add UIDs. Answers the new Profile. Basic app authentication.",
    example: { first_name: 'Pat', last_name: 'Lee', agreed_terms_and_privacy: true },
    errors: [],
  },
  postProfileAddBusiness: {
    description:
      "A server app creates a business profile, and its wallet, on its own site. manager_uid names the personal profile (on the same site) that manages the business; addresses use two-letter country codes. Answers the new Profile.",
    example: { business_name: 'Corner Coffee', business: { line1: '1 Main St', city: 'Springfield', state: 'IL', country: 'US', zip: '12345' }, mail: { line1: '1 Main St', city: 'Springfield', state: 'IL', country: 'US', zip: '12345' }, manager_uid: 'pat@example.com' },
    errors: [...pick(profileErrors, 'uid_not_found', 'manager_required', 'manager_not_found')],
  },
  getProfileGetByUid: {
    description:
      "A server app looks a profile of its own site up by one of its UIDs (email or phone). When nothing matches, the answer is an object without profile, not an error, so the app can tell a new person from a known one.",
    example: { uid: 'pat@example.com' },
    errors: [],
  },
  postProfileToken: {
    description:
      "A server app issues a closed-loop access token for a profile of its own site, without the person signing in. For a business, manager_uid names the managing personal profile the token acts for; permissions narrow what the token may do. A profile a bill created for an email no one has proved yet waits for that address's owner to sign up, and is answered as not found.",
    example: { uid: 'pat@example.com' },
    errors: [...pick(profileErrors, 'uid_not_found', 'manager_required', 'manager_not_found', 'not_manager')],
  },
  getProfileFeatures: {
    description:
      "A server app reads which features (design_gl, bill, pull_payment) a profile of its own site has.",
    example: { profileId: '1234567890' },
    errors: [...pick(profileErrors, 'profile_not_found', 'not_available')],
  },
  patchProfileFeatures: {
    description:
      "A server app turns design_gl, bill and pull_payment on (true) or off (false) for a profile of its own site; omitted features stay as they are. Answers the features after the change.",
    example: { profileId: '1234567890', bill: true },
    errors: [...pick(profileErrors, 'profile_not_found', 'not_available')],
  },
  getMe: {
    description:
      "The public information (Profile) of the profile the access token acts for: id, title, type, picture URL. Needs only a valid token.",
    example: {},
    errors: [...pick(profileErrors, 'profile_not_found')],
  },
  getProfileByProfileId: {
    description:
      "Public information (Profile) about any profile by its id: title, type and picture URL. No credentials needed.",
    example: { profileId: '1234567890' },
    errors: [...pick(profileErrors, 'profile_not_found')],
  },
  getWalletInfo: {
    description:
      "The wallet of the token's profile: its ProfileDetail (UIDs, holdings summary, features), the related profiles it may select, and personal_profile when the token selected a business. Some real clients POST to this path: both methods answer the same.",
    example: {},
    errors: [...pick(profileErrors, 'profile_not_found')],
  },
};
