// Every bound the interface names, and every bound we chose where it is silent (see docs/decisions.md).
// Units come last in each name.

// Identity and devices
export const deviceUuidCharsMax = 36;
export const deviceNameCharsMax = 200;
export const trustedDeviceMs = 30 * 24 * 60 * 60 * 1000;
export const loginCharsMax = 200;
export const usernameCharsMax = 100;

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
export const titleCharsMax = 100;
export const webSiteCharsMax = 100;
export const businessDescriptionCharsMax = 3000;
export const profilePhoneCharsMax = 20;
export const addressLineCharsMax = 50;
export const addressCityCharsMax = 50;
export const addressSuiteCharsMax = 20;
export const addressZipCharsMax = 20;
export const accessMethodCharsMax = 100;
export const pinDigits = 4;

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

// Invitations
export const inviteEmailCharsMax = 100;
export const invitePhoneCharsMax = 100;
export const inviteExtIdCharsMax = 1024;
export const inviteUrlTemplateCharsMax = 2000;
export const inviteSenderFieldCharsMax = 1000;

// Search, history, sync
export const searchQueryCharsMax = 1000;
export const searchQueryServiceCharsMin = 3;
export const searchLimitDefault = 20;
export const searchLimitMax = 100;
export const historyLimitDefault = 100;
export const historyLimitMax = 1000;
export const historyAppdataFilterCharsMax = 128;
export const syncLimitDefault = 1000;
export const syncLimitMax = 1000;
export const offersFindLimitDefault = 10;
export const offersFindLimitMax = 100;
export const redeemersListMax = 100;

// Messages
export const sendMessageCharsMax = 10_000;
export const sendMessageSubjectCharsMax = 100;
export const designMessageCharsMax = 1000;
export const statusPostCharsMax = 140;

// Transfers
export const appdataCharsMax = 10_000;
export const dedupIdCharsMax = 128;
export const dedupWindowMs = 24 * 60 * 60 * 1000;
export const paycodeExpiryMsMax = 10 * 365 * 24 * 60 * 60 * 1000 + 3 * 24 * 60 * 60 * 1000;
export const billPaymentWaitMs = 14 * 24 * 60 * 60 * 1000;

// Designs
export const designDescriptionCharsMax = 10_000;
export const planTitleCharsMax = 50;
export const agreementTermsTextCharsMax = 50;

// Images
export const defaultImageWidthPxMin = 540;
export const profileImageWidthPxMin = 250;
export const iconFitPx = 512;

// Authentication codes
export const addUidCodeDigitsShort = 6;
export const addUidCodeDigitsLong = 9;

// HTTP
export const requestBodyBytesMax = 1024 * 1024;
export const imageBodyBytesMax = 10 * 1024 * 1024;

// Engine internals
export const lockTtlMs = 10_000;
export const lockRetryCount = 2000;
export const lockRetryDelayMs = 3;
export const lockRetryJitterMs = 3;
export const commandVersionConflictRetriesMax = 3;
/** Commands that may share one transaction (see RunOptions.shared); postgres.js pipelines up to 100 statements. */
export const sharedTransactionCommandsMax = 32;
/** Shared transactions one process runs at once; their shared rows are locked in order, so they queue, never deadlock. */
export const sharedTransactionsInFlightMax = 2;
export const sweeperIntervalMs = 500;
export const sweeperBatchMax = 50;
export const outboxIntervalMs = 1000;
export const outboxBatchMax = 20;
export const outboxAttemptsMax = 8;
export const outboxBackoffBaseMs = 1000;
export const outboxLeaseMs = 30_000;

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
export const authnFactorsPerAttemptMax = 6;
export const devicePasswordBytes = 24;
export const invitationLifetimeMs = 30 * 24 * 60 * 60 * 1000;
export const invitationCodeChars = 8;
export const invitationCodeCharsMin = 6;
export const invitationExpireAfterFailures = 5;
export const invitationAddressesMax = 10;
export const oauthCodeLifetimeMs = 10 * 60 * 1000;
export const oauthFlowLifetimeMs = 30 * 60 * 1000;
export const oauthStateCharsMax = 2000;
export const profileImageRenditionsPx = [24, 48, 73] as const;

// Ledger (cash, transfers, payouts; see docs/ledger.md and docs/decisions.md)
export const amountsEntriesMax = 20;
export const serialNumbersMax = 1000;
export const sendNotesMax = 5000;
export const sendNotesFirstBatch = 32;
export const paycodeDigits = 8;
export const paycodeGenerateTriesMax = 10;
export const paycodeExpiryMsDefault = 24 * 60 * 60 * 1000;
export const paycodeCorrectionMs = 10 * 60 * 1000;
export const holdSecondsMax = 7 * 24 * 60 * 60;
export const invitationExpireDaysDefault = 30;
export const invitationExpireDaysMax = 365;
export const dfiAccountFieldCharsMax = 100;
export const routingNumberDigits = 9;
export const accountNumberDigitsMax = 17;
export const fxRateCharsMax = 25;
export const payoutFeeMinorExpress = 100n;

// Trades (POST /wallet/trade): how long the recipient has to accept.
export const tradeAcceptExpireSecondsDefault = 24 * 60 * 60;
export const tradeAcceptExpireSecondsMax = 30 * 24 * 60 * 60;
/** Entries in a trade's amounts or expect_amounts list. */
export const tradeEntriesMax = 20;

// Cash designs (POST /design/create and friends).
export const designTitleCharsMax = 100;
export const planRecipientsMax = 20;
export const agreementTermsLinkCharsMax = 2000;
export const agreementRemoveIdsMax = 100;
/** GET /design and the operator's list return at most this many designs. */
export const designsListMax = 1000;
export const designExpireRelativeDaysMax = 36_500;

// Trust (issue 8): bad input at the edge, rate limits, guessing guards.
/** A Content-Type header longer than this is refused (415) before any parser reads it. */
export const contentTypeCharsMax = 256;
/** Pixels an uploaded image may decode to (sharp refuses more): 50 megapixels. */
export const imageInputPixelsMax = 50_000_000;
/** Wrong codes for one login (across attempts, within authnLoginGuardWindowMs) before each further code needs a solved captcha. */
export const authnCodeCaptchaAfterFailures = 3;
/** Code and invitation messages: per login (address), per app and per client address, in one window. */
export const rateMessagesWindowSeconds = 15 * 60;
export const rateMessagesPerLoginMax = 5;
export const rateMessagesPerAppMax = 2000;
export const rateMessagesPerAddressMax = 30;
/** Authentication calls (/aa/*, /oauth/*, /authorize) per client address. */
export const rateAuthnCallsWindowSeconds = 60;
export const rateAuthnCallsPerAddressMax = 120;
