// Every bound the interface names, and every bound we chose where it is silent (see docs/decisions.md).
// Units come last in each name.

/** One day, in milliseconds. */
export const dayMs = 24 * 60 * 60 * 1000;

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

// Invitations
export const inviteEmailCharsMax = 100;
export const invitePhoneCharsMax = 100;
export const inviteExtIdCharsMax = 1024;
export const inviteUrlTemplateCharsMax = 2000;
export const inviteSenderFieldCharsMax = 1000;
/** invitation_code_length on a send: the longest invitation code asked for, in characters. */
export const invitationCodeCharsMax = 32;
/** The shortest invitation code as typed into /wallet/accept-code, in characters. */
export const invitationCodeInputCharsMin = 4;
/** The longest invitation code as typed into /wallet/accept-code (spaces and dashes allowed), in characters. */
export const invitationCodeInputCharsMax = 64;

// Search, history, sync
export const searchQueryCharsMax = 1000;
export const searchQueryServiceCharsMin = 3;
export const searchLimitDefault = 20;
export const searchLimitMax = 100;
/** offset on /wallet/search, in results. */
export const searchOffsetMax = 1_000_000;
export const historyLimitDefault = 100;
export const historyLimitMax = 1000;
/** offset on the transfer history, in rows. */
export const historyOffsetMax = 1_000_000_000;
export const historyAppdataFilterCharsMax = 128;
export const syncLimitDefault = 1000;
export const syncLimitMax = 1000;
/**
 * history_sync's `remain` is exact when at most this many transfers lie before the page's end (the
 * profile's count of views less them) or after it (counted); between, Postgres's estimate, never
 * within this bound of either end. A first page or a last one costs no full count of a long history.
 */
export const syncRemainExactMax = 10_000;
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
/** paycodeExpiryMsMax in whole seconds (expire_seconds on a change of expiration). */
export const paycodeExpirySecondsMax = Math.floor(paycodeExpiryMsMax / 1000);
/** The reason given for retracting a transfer, in characters. */
export const retractReasonCharsMax = 50;
/** The amounts field (a list of up to amountsEntriesMax amounts) as text, in characters. */
export const amountsFieldCharsMax = 2000;
/**
 * The largest amount any field may carry, and any product (price × quantity) may reach, in whole
 * units of its currency: a trillion. With 4 decimals it is 10^16 minor units, a thousandth of a
 * 64-bit column, so sums of many such amounts still fit.
 */
export const amountUnitsMax = 1_000_000_000_000;
export const billPaymentWaitMs = 14 * 24 * 60 * 60 * 1000;

// Designs
export const designDescriptionCharsMax = 10_000;
export const planTitleCharsMax = 50;
export const agreementTermsTextCharsMax = 50;

// Images
export const defaultImageWidthPxMin = 540;
export const profileImageWidthPxMin = 250;
export const iconFitPx = 512;
/** A profile image rendition may be cached this long by browsers and proxies, in seconds. */
export const profileImageCacheSeconds = 24 * 60 * 60;
/** A design image rendition (its URL never changes content) may be cached this long, in seconds. */
export const designImageCacheSeconds = 365 * 24 * 60 * 60;
/** The v (cache-busting version) parameter of a profile image URL, in characters. */
export const imageVersionCharsMax = 20;

// Authentication codes
export const addUidCodeDigitsShort = 6;
export const addUidCodeDigitsLong = 9;

// HTTP
export const requestBodyBytesMax = 1024 * 1024;
export const imageBodyBytesMax = 10 * 1024 * 1024;
/** An X-Request-Id header is kept up to this many characters (longer ones are cut). */
export const requestIdCharsMax = 100;
/** Parameters one form (urlencoded) body may carry. */
export const formParametersMax = 2000;
/** Nesting levels of a request body searched for text Postgres cannot store. */
export const unstorableTextDepthMax = 32;
/** On SIGTERM, open requests get this long to finish before the process exits, in milliseconds. */
export const shutdownGraceMs = 10_000;
/** While the locks (Redis) are not answering at start-up, they are asked again this often, in milliseconds. */
export const startupLockPollMs = 250;

// Engine internals
export const lockTtlMs = 10_000;
/**
 * A command that holds its locks longer than this (its transaction stuck on a connection the
 * database dropped) answers 503 busy and lets its locks go, so the wallet is not stuck behind it.
 * Postgres still guards the rows: a late commit is found by the retry's dedup_id.
 */
export const commandDeadlineMs = 20_000;
/**
 * A request that has not begun its answer within this answers 503 busy with Retry-After (default of
 * CASHLOOP_REQUEST_DEADLINE_MS). Longer than commandDeadlineMs and databaseStatementTimeoutMs, so
 * what a request holds (locks, a statement, a transaction) is let go by those first.
 */
export const requestDeadlineMs = 30_000;
/** Postgres cancels a statement running longer than this (statement_timeout; default of CASHLOOP_STATEMENT_TIMEOUT_MS). */
export const databaseStatementTimeoutMs = 20_000;
/**
 * Postgres ends a session left idle inside a transaction this long (idle_in_transaction_session_timeout;
 * default of CASHLOOP_IDLE_IN_TRANSACTION_TIMEOUT_MS): its row locks go with it. Our transactions
 * never wait on anything but their own statements.
 */
export const databaseIdleInTransactionTimeoutMs = 10_000;
/** A connection attempt to Postgres that has not finished its handshake within this fails (postgres.js connect_timeout). */
export const databaseConnectTimeoutMs = 5_000;
/** The longest wait of a pool connection before it tries to connect again after a failure (its backoff grows to this). */
export const databaseReconnectDelayMsMax = 1_000;
/** The Retry-After, in seconds, of every 503 a database, lock or deadline outage answers. */
export const unavailableRetryAfterSeconds = 1;
export const lockRetryCount = 2000;
/**
 * Tries in one round of a Redlock acquire, and of each lock extension and release: a release or an
 * extension on a Redis that is down gives up after these (tens of milliseconds).
 */
export const lockRoundRetryCount = 10;
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
/**
 * Delivered outbox rows (messages, payouts, feed announcements, invitations) serve only to look back
 * on: the periodic loop deletes them this long after delivery, so the outbox holds what is pending
 * plus about this much of the recent past, however long the process runs (issue 36).
 */
export const outboxDeliveredRetentionMs = 60_000;
/** Rows an operator reads later are kept this long: webhook deliveries (`cashloop webhook deliveries`) and rows parked as failed. */
export const outboxRecordRetentionMs = 7 * 24 * 60 * 60 * 1000;
/** How often the periodic loop prunes the outbox... */
export const outboxPruneIntervalMs = 10_000;
/** ...deleting at most this many rows per statement... */
export const outboxPruneBatchMax = 5_000;
/** ...and at most this many statements per pruning (a backlog is worked off over the next ones). */
export const outboxPruneRoundsMax = 20;

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

// Ledger (cash, transfers, payouts; see docs/ledger.md and docs/decisions.md)
export const amountsEntriesMax = 20;
export const serialNumbersMax = 1000;
/** The serial_numbers field as text: serialNumbersMax numbers at 20 characters each. */
export const serialNumbersFieldCharsMax = serialNumbersMax * 20;
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
/** offer_name (a deposit offer: standard or express) on an account send, in characters. */
export const depositOfferNameCharsMax = 50;
/** Problems of one kind an audit check names at most (the first ones found): the audit's report stays readable. */
export const auditMismatchesMax = 20;

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
/** A media id (a design icon's) named in a request, in characters. */
export const mediaIdCharsMax = 40;
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
/** The cursor of GET /campaign/events, in characters. */
export const campaignEventsCursorCharsMax = 200;
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
/** Pixels times frames (an animated GIF's pages) an upload's header may promise; checked before decoding. */
export const imageDecodeWorkPixelsMax = 40_000_000;
/** As imageDecodeWorkPixelsMax for GIF, whose decoding costs about 10 times a PNG's per pixel (a 6300×6300 GIF took 15 s). */
export const gifDecodeWorkPixelsMax = 16_000_000;
/** One upload's decoding and resizing ends after this long (a 400), whatever the image, in seconds. */
export const imageDecodeSecondsMax = 5;
/** Uploads one process decodes at once; the rest wait their turn, so sends keep the other core. */
export const imageDecodesInFlightMax = 1;
/** Uploads one process lets wait for the decoder; past them an upload answers 429 with Retry-After before any work. */
export const imageDecodesQueuedMax = 4;
/**
 * The share of one core a process's image decoding may take over time: after a decode that took
 * t, the next starts no sooner than t × (1 / share − 1) later (uploads wait in the queue above).
 */
export const imageDecodeCoreShareMax = 0.25;
/** JPEG quality of design image renditions. */
export const designJpegQuality = 85;
/** The decoder process's niceness (0 normal, 19 lowest) where the idle scheduling class is not to be had: on a busy machine sends get the CPU first. */
export const imageDecoderNice = 19;
/** A decode still unanswered after this long ends the decoder process (a 400 as past the budget); the next upload starts another. */
export const imageDecoderWatchdogSeconds = imageDecodeSecondsMax * 3;
/** Denominations with their own image on one design. */
export const designImageDenominationsMax = 100;

// Point of sale (pull, processor, settlement, report).
export const posMessageCharsMax = 1000;
/** non_service_amount on /proc/send and /pull/redeem (the sale's part paid outside the service), in whole currency units. */
export const nonServiceAmountUnitsMax = 1_000_000;
/** pos_device filter on the receivable report, in characters. */
export const posDeviceCharsMax = 60;
/** start_date and end_date of a report (YYYY-MM-DD), in characters. */
export const reportDateCharsMax = 10;
/** A customer's pull consents listed at once. */
export const pullConsentsListMax = 1000;
/** Pending settlement rows one settle command pays; the rest wait for the next batch. */
export const settleBatchMax = 500;
export const settleBatchDefault = 100;
/** Batches one `cashloop settle` run pays before it stops (each batch is its own command). */
export const settleBatchesPerRunMax = 10_000;
/** Report rows a report reads from the database per round trip on PGlite (Postgres streams COPY). */
export const reportCursorRows = 1000;
/** Rows a JSON report answers with at most (it streams, but a client parses it whole); CSV has no limit. */
export const reportJsonRowsMax = 200_000;
/**
 * Bytes the API gathers from the report's COPY before one write to the client: Postgres sends each
 * row as its own message, and a write per row (100,000 chunked frames) costs more than the rows.
 */
export const reportWriteBytesMin = 64 * 1024;

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
/** The email an accept is confirmed by, in characters. */
export const offerAcceptEmailCharsMax = 100;
// Paycards (/wallet/paycard/*).
/** Cards one wallet may hold linked at once. */
export const paycardsPerWalletMax = 10;
/** A paycard PIN: exactly this many digits. */
export const paycardPinDigits = 4;
/** card_id in a request, in characters. */
export const paycardIdCharsMax = 32;
/** A card number as typed (spaces and dashes allowed), in characters; the engine checks its digits. */
export const paycardPanCharsMax = 40;
/** A PIN at the edge, in characters; the engine checks paycardPinDigits and names it. */
export const paycardPinCharsMax = 12;

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
/** POST /wallet/accept-code calls per token and per client address, in one window (issue 25). */
export const rateAcceptCodeWindowSeconds = 60;
export const rateAcceptCodePerTokenMax = 10;
export const rateAcceptCodePerAddressMax = 30;
/** Wrong invitation codes one token, or one wallet, may try in one window; then accept-code answers 429 until it ends. */
export const acceptCodeFailuresWindowSeconds = 60 * 60;
export const acceptCodeFailuresMax = 10;
/** POST /o/<id>/signup_accept per client address and per offer, in one window (each makes a profile). */
export const rateSignupAcceptWindowSeconds = 15 * 60;
export const rateSignupAcceptPerAddressMax = 10;
export const rateSignupAcceptPerOfferMax = 100;
/** signup_accepts from one client address in the window before each further one needs a solved captcha. */
export const signupAcceptCaptchaAfterCalls = 2;
/** Image uploads (profile and design images, icons) per token, in one window. */
export const rateImageUploadsWindowSeconds = 60;
export const rateImageUploadsPerTokenMax = 10;

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

// The receive feed (/bd/sockjs, /wallet/receive-feed; engine/feed, api/feed).
/** A connection without a feed subscription is closed after this long idle (supplement 4.11); config may shorten it in tests. */
export const feedIdleCloseMs = 60_000;
/** Feed subscriptions one access token may hold open at once (across its connections in one process). */
export const feedSubscriptionsPerTokenMax = 5;
/** Open bidirectional connections from one client address, per process (scaled by CASHLOOP_RATE_LIMIT_SCALE). */
export const feedConnectionsPerAddressMax = 50;
/** One request message, in characters. */
export const feedRequestCharsMax = 4096;
/**
 * One body SockJS reads (xhr_send, jsonp_send: a batch of messages) and one WebSocket message, in
 * bytes: a larger one is answered 413 (WebSocket: closed 1009) before it is kept. Room for a dozen
 * requests of the longest kind, or hundreds of usual ones.
 */
export const feedTransportBodyBytesMax = 65_536;
/** Requests of one connection waiting for their answers; more are refused at once (429 too_many_pending_requests). */
export const feedRequestsPendingMax = 16;
/** Receipts one /wallet/receive-feed reply lists (`limit`): default and most. */
export const feedReceiptsListDefault = 20;
export const feedReceiptsListMax = 100;
/** A connection that has not taken this many messages yet (SockJS's send buffer) is dropped, not buffered further. */
export const feedBacklogMessagesMax = 200;
/** ...nor this many bytes not yet taken (its send buffer and its socket). Answers count as receipts do. */
export const feedBacklogBytesMax = 1_048_576;
/**
 * A process with subscribers claims due feed.receipt outbox rows right after each of its commits and
 * also this often: that is how receipts committed by processes without subscribers (which do not
 * claim after their commits, so a send pays nothing for the feed but its outbox row) reach it.
 */
export const feedRelayIntervalMs = 50;
/**
 * A process without subscribers claims them this often (one statement for up to feedRelayBatchMax
 * rows, and again while batches come back full), so receipts nobody listens for are announced and
 * marked delivered at the rate sends make them instead of piling up pending (issue 36).
 */
export const feedIdleRelayIntervalMs = 1_000;
/** The live feed reuses a sender's public profile read this recently (a busy till costs no profile read per payment)... */
export const feedSenderCacheMs = 5_000;
/** ...for at most this many senders per process. */
export const feedSenderCacheEntriesMax = 10_000;
/** Outbox rows one relay run claims. */
export const feedRelayBatchMax = 500;
/** Receipts announced in one bus message (a Postgres NOTIFY payload holds under 8,000 bytes). */
export const feedBusItemsMax = 60;
/** Subscribed tokens are checked again this often (a token that expired or was logged out ends its subscription). */
export const feedTokenCheckIntervalMs = 15_000;
/**
 * A catch-up (`after_timestamp`) also lists receipts this much older than the timestamp asked for: a
 * receipt's timestamp is taken when its command starts and a command may commit up to its deadline later.
 */
export const feedCatchUpOverlapMs = 20_000;

/**
 * The embedded database drops erased content (a delivered message's body) from its files this long
 * after an erasure: one vacuum, WAL switch and checkpoint for all the erasures in that time.
 */
export const pgliteErasedScrubDelayMs = 10_000;

/** How long start-up waits for the receive feed's Redis subscription before going on (a Redis that is down is then reported by the start-up check). */
export const feedBusListenWaitMs = 3_000;
/** A receipt's announcement on the feed bus is retried this many times, from this first wait doubling (about 8 s in all). */
export const feedAnnounceAttemptsMax = 6;
export const feedAnnounceBackoffBaseMs = 250;

/** Rows of the audit's reserve owed per design and distributor (`GET /admin/ledger/audit` `owed`). */
export const owedByDistributorRowsMax = 1000;

/** A readable log line (a terminal's) shows at most this many fields, each cut to this many characters. */
export const logReadableFieldsMax = 6;
export const logFieldCharsMax = 80;
