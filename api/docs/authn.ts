// The operations of api/routes/authn.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { authnErrors } from '../routes/authn.ts';
import { invitationErrors } from '../routes/invitations.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const authnDocs: OperationDocs = {
  postAttemptSignup: {
    description:
      "Starts creating a wallet for a new person: login is an email or phone (countries helps parse a phone). A code is sent to it to prove control. Answers an AuthnResult: the attempt's id, secret and path, and the factors still to prove (or, when done, a token). Throttled per login, app and client address.",
    example: { device_uuid: 'device-1', login: 'pat@example.com', client_id: '12345' },
    errors: [...pick(authnErrors, 'unknown_app', 'captcha_required', 'uid_taken')],
  },
  postAttemptSignin: {
    description:
      "Starts signing in to an existing wallet with its login and password (required here); a code sent to the login proves the second factor unless trust30 was set on this device in the last 30 days. Answers an AuthnResult: the attempt's id, secret and path, and the factors still to prove (or, when done, a token). Throttled per login, app and client address.",
    example: { device_uuid: 'device-1', login: 'pat@example.com', client_id: '12345', password: 'correct horse battery' },
    errors: [...pick(authnErrors, 'unknown_app', 'captcha_required', 'uid_taken')],
  },
  postAttemptReset: {
    description:
      "Starts resetting a forgotten password: codes sent to the wallet's email and phone prove the person, then POST /aa/{attemptId}/reset-password sets the new one. Answers an AuthnResult: the attempt's id, secret and path, and the factors still to prove (or, when done, a token). Throttled per login, app and client address.",
    example: { device_uuid: 'device-1', login: 'pat@example.com', client_id: '12345' },
    errors: [...pick(authnErrors, 'unknown_app', 'captcha_required', 'uid_taken')],
  },
  postAttemptAccept: {
    description:
      "Starts accepting an invitation (invite_id): the invited address proves itself with a code and the new wallet is linked to the invitation. Answers an AuthnResult: the attempt's id, secret and path, and the factors still to prove (or, when done, a token). Throttled per login, app and client address.",
    example: { device_uuid: 'device-1', login: 'pat@example.com', client_id: '12345', invite_id: 'inv1234567890' },
    errors: [...pick(authnErrors, 'unknown_app', 'captcha_required', 'uid_taken'), ...pick(invitationErrors, 'invitation_gone')],
  },
  postAttemptSigninClosed: {
    description:
      "A server app starts a one-factor sign-in to the closed-loop part of a wallet: a code to the login is enough, and the token only sees the app's own loop. Basic app authentication. Answers an AuthnResult: the attempt's id, secret and path, and the factors still to prove (or, when done, a token). Throttled per login, app and client address.",
    example: { device_uuid: 'device-1', login: 'pat@example.com' },
    errors: [...pick(authnErrors, 'unknown_app', 'captcha_required', 'uid_taken')],
  },
  postAttemptSignupClosed: {
    description:
      "A server app starts a one-factor sign-up of a closed-loop wallet: a code to the login creates it. Basic app authentication. Answers an AuthnResult: the attempt's id, secret and path, and the factors still to prove (or, when done, a token). Throttled per login, app and client address.",
    example: { device_uuid: 'device-1', login: 'pat@example.com' },
    errors: [...pick(authnErrors, 'unknown_app', 'captcha_required', 'uid_taken')],
  },
  postAttemptAuthUid: {
    description:
      "Proves control of a UID (factor_id) with the code sent to it. Too many wrong codes end the attempt. The attempt secret goes in the Authorization header (service secret=\"...\"). Answers the updated AuthnResult.",
    example: { attemptId: 'aa1234567890', factor_id: 'f1', code: '123456' },
    errors: [...pick(authnErrors, 'attempt_gone', 'secret_mismatch', 'incorrect_code', 'captcha_required')],
  },
  postAttemptAuthPassword: {
    description:
      "Submits the password of the wallet the login matched, when the AuthnResult asks for a password factor. The attempt secret goes in the Authorization header (service secret=\"...\"). Answers the updated AuthnResult.",
    example: { attemptId: 'aa1234567890', password: 'correct horse battery' },
    errors: [...pick(authnErrors, 'attempt_gone', 'secret_mismatch', 'password_not_matched', 'captcha_required')],
  },
  postAttemptAddFactor: {
    description:
      "Begins proving one more email or phone within the attempt (a sign-up needs both); a code is sent to it. Throttled like the start calls. The attempt secret goes in the Authorization header (service secret=\"...\").",
    example: { attemptId: 'aa1234567890', login: '+15555550123' },
    errors: [...pick(authnErrors, 'attempt_gone', 'secret_mismatch', 'uid_taken')],
  },
  postAttemptSetSignupData: {
    description:
      "Records the new wallet's name and/or password during a sign-up, before signup-finish. The attempt secret goes in the Authorization header (service secret=\"...\").",
    example: { attemptId: 'aa1234567890', first_name: 'Pat', last_name: 'Lee' },
    errors: [...pick(authnErrors, 'attempt_gone', 'secret_mismatch')],
  },
  postAttemptSignupFinish: {
    description:
      "Creates the wallet once every factor is proven and the terms are agreed; answers the AuthnResult with the new token and profile. The attempt secret goes in the Authorization header (service secret=\"...\").",
    example: { attemptId: 'aa1234567890', agreed: true },
    errors: [...pick(authnErrors, 'attempt_gone', 'secret_mismatch', 'not_ready')],
  },
  postAttemptResetPassword: {
    description:
      "Sets the new password once every factor of a reset attempt is proven; answers the AuthnResult with a token and the profile. The attempt secret goes in the Authorization header (service secret=\"...\").",
    example: { attemptId: 'aa1234567890', password: 'correct horse battery' },
    errors: [...pick(authnErrors, 'attempt_gone', 'secret_mismatch', 'not_ready')],
  },
  postAttemptSetTrust: {
    description:
      "Turns on or off trusting this device as a factor for 30 days, for later sign-ins from it. The attempt secret goes in the Authorization header (service secret=\"...\").",
    example: { attemptId: 'aa1234567890', trust30: true },
    errors: [...pick(authnErrors, 'attempt_gone', 'secret_mismatch')],
  },
  getAttemptRecaptchaInvisibleSitekey: {
    description:
      "The reCAPTCHA site key apps embed before calling the /aa start calls. In sandbox the answer also carries captcha_bypass, a value accepted as g-recaptcha-response so tests need no browser.",
    example: {},
    errors: [],
  },
};
