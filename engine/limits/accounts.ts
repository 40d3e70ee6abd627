// Bounds of identity and access: devices, tokens, names and profile fields, apps and OAuth, authentication.
// Units come last in each name. engine/limits.ts re-exports this file: import the constants from there.

// Identity and devices
export const deviceUuidCharsMax = 36;
export const deviceNameCharsMax = 200;
export const trustedDeviceMs = 30 * 24 * 60 * 60 * 1000;
export const loginCharsMax = 200;
/** The shortest email address (a@b), in characters. */
export const emailCharsMin = 3;
export const usernameCharsMax = 100;
/** A UID given back to the API (type prefix such as "email:" and the login), in characters. */
export const uidCharsMax = loginCharsMax + 10;
/** An id a request names (client, invitation, attempt, plan, profile): digits of a 64-bit number, in characters. */
export const idCharsMax = 20;
/** Country codes one request may name for reading phone numbers. */
export const countriesMax = 20;
/** The countries a phone number is read in when the caller names none (ISO 3166 codes). */
export const defaultCountries: readonly string[] = Object.freeze(['US']);
/** Confirmed UIDs of one profile read (and listed) at once. */
export const confirmedUidsMax = 100;
/** Devices of one profile listed at once. */
export const profileDevicesListMax = 1000;

// Tokens (durations are our choices; see docs/decisions.md)
export const tokenSoftExpirationMs = 15 * 60 * 1000;
export const tokenHardExpirationMs = 3650 * 24 * 60 * 60 * 1000;
export const concurrentTokenHardExpirationMs = 15 * 60 * 1000;
export const refreshFailuresMax = 5;
export const tokenSecretBytes = 24;
export const appSecretBytes = 32;
export const operatorKeyBytes = 32;

// Names, passwords, profile fields
export const passwordCharsMin = 8;
export const passwordCharsMax = 100;
export const personNameCharsMax = 50;
export const businessNameCharsMax = 100;
export const dbaCharsMax = 100;
export const webSiteCharsMax = 100;
export const businessDescriptionCharsMax = 3000;
export const profilePhoneCharsMax = 20;
export const addressLineCharsMax = 50;
export const addressCityCharsMax = 50;
export const addressSuiteCharsMax = 20;
export const addressZipCharsMax = 20;
export const accessMethodCharsMax = 100;
/** Business managers listed (and checked) at once, in rows. */
export const businessManagersListMax = 1000;
/** Businesses one profile manages, listed at once, in rows. */
export const managedProfilesListMax = 1000;
/** Features of one profile read at once, in rows. */
export const profileFeaturesListMax = 100;

// Edge bounds (UTF-16 code units) on fields whose real bound, in characters, the engine checks and names in
// its message: generous, so the engine's message is the one a caller sees.
/** A password field at the edge; the engine checks passwordCharsMax. */
export const passwordFieldCharsMax = passwordCharsMax * 4;
/** first_name and last_name at sign-up; the engine checks personNameCharsMax. */
export const signupNameFieldCharsMax = personNameCharsMax * 2;
/** first_name and last_name on /wallet/change-name; the engine checks personNameCharsMax. */
export const changeNamePersonFieldCharsMax = personNameCharsMax * 4;
/** title and dba on /wallet/change-name; the engine checks businessNameCharsMax and dbaCharsMax. */
export const changeNameBusinessFieldCharsMax = businessNameCharsMax * 4;

// Business locations (degrees, stored with six decimals: about 0.1 m)
export const latitudeDegreesMax = 90;
export const longitudeDegreesMax = 180;
export const coordinateDecimalsMax = 6;
/** Decimals accepted on input (rounded to coordinateDecimalsMax), enough for any JSON number's digits. */
export const coordinateInputDecimalsMax = 20;

// Apps
export const appNameCharsMax = 100;
export const appSiteCharsMax = 100;
export const redirectUriCharsMax = 2000;
export const redirectUrisMax = 20;
/** A scope (space-separated permission names) on /authorize or /token, in characters. */
export const oauthScopeCharsMax = 2000;
/** response_type on /authorize, in characters. */
export const oauthResponseTypeCharsMax = 20;
/** uuid (the device's) on /authorize, in characters; the engine then checks deviceUuidCharsMax and names it. */
export const oauthAuthorizeUuidCharsMax = 100;
/** force_login on /authorize (a yes/no word), in characters. */
export const oauthFlagCharsMax = 10;
/** The flow field the authorization pages post back, in characters. */
export const oauthFlowFieldCharsMax = 100;
/** grant_type and client_id on /token, in characters. */
export const oauthTokenFieldCharsMax = 100;
/** code and client_secret on /token, in characters. */
export const oauthTokenSecretCharsMax = 200;
/** An error_description the authorization flow redirects with, in characters. */
export const oauthErrorDescriptionCharsMax = 200;
/** PKCE (RFC 7636): an S256 code_challenge is the base64url SHA-256 of the verifier, always this many characters. */
export const pkceChallengeChars = 43;
/** PKCE code_verifier bounds (RFC 7636 4.1), in characters. */
export const pkceVerifierCharsMin = 43;
export const pkceVerifierCharsMax = 128;
/** code_challenge_method: the longest value read (S256, plain, or something unknown that is refused). */
export const pkceMethodCharsMax = 20;

// Authentication (our choices where the interface is silent; see docs/decisions.md)
export const authnAttemptLifetimeMs = 30 * 60 * 1000;
export const authnSecretBytes = 20;
export const authnFactorIdBytes = 4;
export const authnEmailCodeDigits = 9;
export const authnSmsCodeDigits = 6;
export const authnCaptchaAfterFailures = 3;
export const authnExpireAfterFailures = 6;
export const authnLoginGuardWindowMs = 60 * 60 * 1000;
export const authnLoginCaptchaAfterFailures = 3;
export const captchaVerifyTimeoutMs = 5_000;
/** A g-recaptcha-response token, in characters. */
export const captchaResponseCharsMax = 4000;
/** A code as typed (email, SMS), before it is checked, in characters. */
export const authnCodeCharsMax = 64;
/** A factor id given back to /aa/auth-uid, in characters. */
export const authnFactorIdCharsMax = 32;
/** An attempt secret given back to /wallet/add-uid-confirm, in characters. */
export const authnAttemptSecretCharsMax = 100;
/** flow_subtype on the /aa/* start calls, in characters. */
export const flowSubtypeCharsMax = 50;
/** Permissions one /aa/* start call may ask for. */
export const permissionsMax = 50;
/** One permission name on an /aa/* start call, in characters. */
export const permissionNameCharsMax = 50;
/** An SMS handed to the SMS_WEBHOOK_URL provider answers within this, or the outbox retries it. */
export const smsWebhookTimeoutMs = 10_000;
export const authnFactorsPerAttemptMax = 6;
export const devicePasswordBytes = 24;
/** Device password hashes of one device tried at sign-in (one per access method), in rows. */
export const devicePasswordHashesMax = 20;
export const invitationLifetimeMs = 30 * 24 * 60 * 60 * 1000;
export const invitationCodeChars = 8;
export const invitationCodeCharsMin = 6;
export const invitationExpireAfterFailures = 5;
export const invitationAddressesMax = 10;
/** A re-send to every earlier address counts them before its lock; one that raced an added address tries again, this many times in all. */
export const invitationReinviteTriesMax = 3;
export const oauthCodeLifetimeMs = 10 * 60 * 1000;
export const oauthFlowLifetimeMs = 30 * 60 * 1000;
/** oauthFlowLifetimeMs in seconds: the flow cookie's Max-Age. */
export const oauthFlowLifetimeSeconds = oauthFlowLifetimeMs / 1000;
/** Bytes of randomness in an authorization flow's secret (its cookie and form field). */
export const oauthFlowSecretBytes = 24;
/** Bytes of randomness in an authorization code. */
export const oauthCodeSecretBytes = 24;
export const oauthStateCharsMax = 2000;
export const profileImageRenditionsPx = [24, 48, 73] as const;
