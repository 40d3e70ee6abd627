// The operations of api/routes/tokens.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { profileErrors } from '../routes/profiles.ts';
import { tokenErrors } from '../routes/tokens.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const tokenDocs: OperationDocs = {
  getTokenSelectable: {
    description:
      "The profiles the authenticated personal profile may act as: itself and every business it manages. Pass one's id to GET /token/select/{profileId}.",
    example: {},
    errors: [],
  },
  getTokenSelectByProfileId: {
    description:
      "Issues a token for a business the authenticated personal profile manages (or for the personal profile itself), with the same app, device and permissions. The new token's hard expiration is never later than this one's.",
    example: { profileId: '1234567890' },
    errors: [...pick(profileErrors, 'not_manager')],
  },
  postTokenRefresh: {
    description:
      "Renews the soft expiration of a valid or soft-expired token, proven by the wallet's password or the device PIN; the hard expiration does not move. A token past its hard expiration must authorize again.",
    example: { password: 'correct horse battery' },
    errors: [...pick(tokenErrors, 'credentials_required', 'incorrect_password', 'incorrect_pin', 'pin_not_set', 'refresh_locked')],
  },
  postTokenLogout: {
    description:
      "Ends this token and every other token of the same personal profile issued to the same app (selected business tokens included). Other apps stay signed in.",
    example: {},
    errors: [],
  },
};
