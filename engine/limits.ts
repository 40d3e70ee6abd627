// Every bound the interface names, and every bound we chose where it is silent (see docs/decisions.md).
// Units come last in each name.

/** One day, in milliseconds. */
export const dayMs = 24 * 60 * 60 * 1000;

// Identity and devices
export const deviceUuidCharsMax = 36;
export const deviceNameCharsMax = 200;
export const trustedDeviceMs = 30 * 24 * 60 * 60 * 1000;
export const loginCharsMax = 200;
export const usernameCharsMax = 100;
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
/** Business managers listed (and checked) at once, in rows. */
export const businessManagersListMax = 1000;
/** Businesses one profile manages, listed at once, in rows. */
export const managedProfilesListMax = 1000;
/** Features of one profile read at once, in rows. */
export const profileFeaturesListMax = 100;

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
/** An error_description the authorization flow redirects with, in characters. */
export const oauthErrorDescriptionCharsMax = 200;

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
/** How long a lock waits for a majority of Redis nodes to be connected (a restart) before it answers 503 busy. */
export const lockQuorumWaitMs = 3_000;
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
export const oauthCodeLifetimeMs = 10 * 60 * 1000;
export const oauthFlowLifetimeMs = 30 * 60 * 1000;
/** Bytes of randomness in an authorization flow's secret (its cookie and form field). */
export const oauthFlowSecretBytes = 24;
/** Bytes of randomness in an authorization code. */
export const oauthCodeSecretBytes = 24;
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
/** The express payout fee in hundredths of the currency's major unit (100 = 1.00), whatever its decimals. */
export const payoutExpressFeeHundredths = 100n;

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
/** Notes one expiry sweep of a design moves out of circulation; the rest go on the next sweep. */
export const designExpiryBatchMax = 500;
/** Notes due to expire while held in escrow are tried again after this long. */
export const escrowedExpiryRetryMs = 60 * 60 * 1000;
/** Brand cash notes a redeemer's wallet redeems on arrival in one transfer. */
export const redeemOnArrivalNotesMax = 1000;
/** message_rules entries on a design send. */
export const designMessageRulesMax = 20;
/** Reserve notes one release reads; a reserve is kept in few notes, as it is paid in whole picks. */
export const reserveNotesMax = 10_000;
// Bills (POST /design/<id>/bill).
/** The customer is reminded this often until they confirm payment was sent. */
export const billReminderIntervalMs = 24 * 60 * 60 * 1000;
export const billDeclaredBankCharsMax = 100;
// Campaign events (GET /campaign/events).
export const campaignEventsLimitDefault = 50;
export const campaignEventsLimitMax = 500;
/** GET /campaign/list and the designs events are read from. */
export const campaignDesignsMax = 1000;
// Brand cash reminders (remind-brand-cash).
/** Holders one design's daily reminder reaches; more are reached on later days, soonest expiry first. */
export const brandCashReminderHoldersMax = 1000;
/** Within this many days of expiry a holder is reminded every day, whatever the design's email_freq. */
export const brandCashExpiryWarningDays = 7;

// Design images and icons (PUT /design/<id>/image, /image/<denomination>, /icon; docs/decisions.md).
// Images need defaultImageWidthPxMin; icons are fitted into iconFitPx squares.
/** A design image's renditions: near 16:9, cropped to fill. */
export const designImageFullPx = Object.freeze({ width: 1080, height: 608 });
export const designImageThumbnailPx = Object.freeze({ width: 540, height: 304 });
export const designIconThumbnailPx = 128;
/** Decoded pixels an uploaded image (design or profile) may have: decompression bombs are refused before decoding. */
export const imageInputPixelsMax = 40_000_000;
/** Denominations with their own image on one design. */
export const designImageDenominationsMax = 100;

// Point of sale (pull, processor, settlement, report).
export const posMessageCharsMax = 1000;
/** A customer's pull consents listed at once. */
export const pullConsentsListMax = 1000;
/** Pending settlement rows one settle command pays; the rest wait for the next batch. */
export const settleBatchMax = 500;
export const settleBatchDefault = 100;
/** Batches one `cashloop settle` run pays before it stops (each batch is its own command). */
export const settleBatchesPerRunMax = 10_000;
/** Report rows a CSV export reads from the database per round trip. */
export const reportCursorRows = 1000;
/** Rows a JSON report answers with at most; CSV has no limit. */
export const reportJsonRowsMax = 200_000;

// --- First hour (issue 13): start-up, readiness and identifier keys ---
/** Random bytes of an installation's id permutation key (created at first start). */
export const idPermutationKeyBytes = 32;
/** Random bytes of an installation's other keys (paycode digest and seal, invitation code digest, card tokens). */
export const installationKeyBytes = 32;
/** Each readiness probe (database, locks) answers within this, or counts as down. */
export const readinessCheckTimeoutMs = 800;
/** Start-up gives the database and Redis this long to answer before it names the problem. */
export const startupConnectTimeoutMs = 5_000;
/** The operator's lists (apps, profiles, accounts) return at most this many rows. */
export const operatorListMax = 1000;

// Offers (engine/offers): merchant fields, stock and search.
export const offerTitleCharsMax = 100;
export const offerDescriptionCharsMax = 2000;
export const offerUrlCharsMax = 2000;
export const offerOptionsMax = 10;
export const offerOptionIdCharsMax = 40;
/** show_limit: units one person may accept of one offer. */
export const offerShowLimitMax = 1000;
export const offerQuantityMax = 10_000_000;
/** GET /o/find: businesses per page (spec: 1 to 100, default 10). */
export const offerFindLimitMax = 100;
export const offerFindLimitDefault = 10;
export const offerFindOffsetMax = 100_000;
export const offerFindTextCharsMax = 1000;
export const offerFindIdsMax = 100;
/** GET /o/find shows at most this many offers of each business (best first), so an answer stays bounded. */
export const offerFindOffersPerBusinessMax = 50;
/** max_distance in metres: at most half the earth's circumference. */
export const offerFindDistanceMetresMax = 20_037_509;
/** GET /o/list and the operator's list return at most this many offers. */
export const offersListMax = 1000;
/** Bytes of randomness in an offer confirmation code (the link in the email). */
export const offerConfirmCodeBytes = 24;
/** An accept waiting for its confirmation link ends after this long; its stock goes back. */
export const offerConfirmExpireMs = 7 * 24 * 60 * 60 * 1000;
// Paycards (/wallet/paycard/*).
/** Cards one wallet may hold linked at once. */
export const paycardsPerWalletMax = 10;
/** A paycard PIN: exactly this many digits. */
export const paycardPinDigits = 4;

// Trust (issue 8): bad input at the edge, rate limits, guessing guards.
/** A Content-Type header longer than this is refused (415) before any parser reads it. */
export const contentTypeCharsMax = 256;
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

// Webhooks (/p/<id>/webhooks, engine/webhooks).
/** Webhooks one profile may register ("within reason"). */
export const webhooksPerProfileMax = 20;
/** A handler URL's length. */
export const webhookUrlCharsMax = 2000;
/** Workflow types one filter may name. */
export const webhookFilterTypesMax = 50;
/** Bytes of randomness in a signing secret (shown once, as whsec_ + base64url). */
export const webhookSecretBytes = 32;
/** After a rotation the previous secret also signs for this long, so receivers can switch. */
export const webhookRotationOverlapMs = 24 * 60 * 60 * 1000;
/** Delivery tries: 12, the first retry after 10 s, doubling (the last about 5.7 hours after the change). */
export const webhookAttemptsMax = 12;
export const webhookBackoffBaseMs = 10_000;
/** One delivery's request times out after this long (and counts as a failure). */
export const webhookTimeoutMs = 10_000;
/** The handler's answer body is read up to this many bytes (for the error log), then dropped. */
export const webhookAnswerBytesMax = 2048;
/** A webhook's deliveries listed per call (GET .../deliveries `limit`): default and most. */
export const webhookDeliveriesListDefault = 20;
export const webhookDeliveriesListMax = 100;
/** Receivers refuse signatures older than this (docs/webhooks.md); the sender's own verify() uses it too. */
export const webhookToleranceSeconds = 300;

// ACH funding proxies (/fundproxy/get-ach, engine/fundproxy).
/** Digits of a proxy's account number. */
export const fundProxyAccountDigits = 12;
/** An ACH trace number (the deposit's idempotency key). */
export const fundProxyTraceCharsMax = 32;
