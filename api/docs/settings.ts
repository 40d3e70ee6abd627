// The operations of api/routes/settings.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { authnErrors } from '../routes/authn.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const settingsDocs: OperationDocs = {
  postWalletAddUid: {
    description:
      "Sends a code to an email, or to each number a phone parses to in the given countries, to add it to the wallet. Answers the attempt id and secret to confirm with POST /wallet/add-uid-confirm. Throttled per address, app and client address.",
    example: { login: 'pat@example.com' },
    errors: [...pick(authnErrors, 'uid_taken')],
  },
  postWalletAddUidConfirm: {
    description:
      "Confirms a UID being added with the code sent to it; replace_uid, when given, is removed in the same step. Answers the wallet's confirmed UIDs.",
    example: { attempt_id: 'aa1234567890', secret: 's3cret', code: '123456' },
    errors: [...pick(authnErrors, 'incorrect_code', 'attempt_gone', 'secret_mismatch', 'uid_taken')],
  },
  postWalletRemoveUid: {
    description:
      "Removes a confirmed UID from the wallet, as long as an email and a phone remain to sign in with.",
    example: { uid: 'pat@example.com' },
    errors: [],
  },
  postWalletChangePassword: {
    description:
      "Changes the wallet's password (8 to 100 characters) given the current one; other sessions keep their tokens.",
    example: { current_password: 'correct horse battery', new_password: 'staple battery horse' },
    errors: [...pick(authnErrors, 'password_not_matched', 'captcha_required')],
  },
  postWalletSetDevicePassword: {
    description:
      "Generates a random password for this device and access method (biometric unlock, for example) and answers it once; only its hash is kept. The current password proves the person.",
    example: { current_password: 'correct horse battery', access_method: 'fingerprint' },
    errors: [...pick(authnErrors, 'password_not_matched', 'captcha_required')],
  },
  postWalletRemoveDevicePassword: {
    description:
      "Removes the device password of this device and access method; it no longer signs in.",
    example: { access_method: 'fingerprint' },
    errors: [],
  },
  postWalletChangeName: {
    description:
      "Changes the profile's name: first_name and last_name for an individual, title and dba for a business.",
    example: { first_name: 'Pat', last_name: 'Lee' },
    errors: [],
  },
  putWalletImage: {
    description:
      "Sets the profile picture from the request body (PNG, JPEG or GIF, at least 250 px wide). The server crops it square and keeps 24, 48 and 73 px renditions, served by GET /image/profile/{profileId}/{size}.",
    example: {},
    errors: [],
  },
  getProfileImage: {
    description:
      "A square rendition of a profile picture in PNG: 24, 48 or 73 px; 25 and 50, which old clients ask for, answer 24 and 48. v, the image version in the profile's picture URL, only tells caches apart. No credentials.",
    example: { profileId: '1234567890', size: '48' },
    errors: [],
  },
};
