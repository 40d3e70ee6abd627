// Bounds of the platform: HTTP, the command path and its loops, start-up, trust (rate limits, guessing), webhooks, the receive feed.
// Units come last in each name. engine/limits.ts re-exports this file: import the constants from there.

/** One day, in milliseconds. */
export const dayMs = 24 * 60 * 60 * 1000;

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

// The receive feed (/bd/sockjs, /wallet/receive-feed; engine/feed, api/feed).
/** A connection without a feed subscription is closed after this long idle (supplement 4.11); config may shorten it in tests. */
export const feedIdleCloseMs = 60_000;
/** Feed subscriptions one access token may hold open at once (across its connections in one process). */
export const feedSubscriptionsPerTokenMax = 5;
/** Open bidirectional connections from one client address, per process (scaled by CASHLOOP_RATE_LIMIT_SCALE). */
export const feedConnectionsPerAddressMax = 50;
/** One request message, in characters. */
export const feedRequestCharsMax = 4096;
/** Receipts one /wallet/receive-feed reply lists (`limit`): default and most. */
export const feedReceiptsListDefault = 20;
export const feedReceiptsListMax = 100;
/** A subscriber that has not taken this many messages yet (SockJS's send buffer) is dropped, not buffered further. */
export const feedBacklogMessagesMax = 200;
/** ...nor this many bytes waiting in its socket. */
export const feedBacklogBytesMax = 1_048_576;
/**
 * A process with subscribers claims due feed.receipt outbox rows right after each of its commits and
 * also this often: that is how receipts committed by processes without subscribers (which do not
 * claim after their commits, so a send pays nothing for the feed but its outbox row) reach it.
 */
export const feedRelayIntervalMs = 50;
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

/** How long start-up waits for the receive feed's Redis subscription before going on (a Redis that is down is then reported by the start-up check). */
export const feedBusListenWaitMs = 3_000;
/** A receipt's announcement on the feed bus is retried this many times, from this first wait doubling (about 8 s in all). */
export const feedAnnounceAttemptsMax = 6;
export const feedAnnounceBackoffBaseMs = 250;

/** Rows of the audit's reserve owed per design and distributor (`GET /admin/ledger/audit` `owed`). */
export const owedByDistributorRowsMax = 1000;

// Healing after outages, the bounded outbox and feed, secrets at rest, readable logs.
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
/**
 * Tries in one round of a Redlock acquire, and of each lock extension and release: a release or an
 * extension on a Redis that is down gives up after these (tens of milliseconds).
 */
export const lockRoundRetryCount = 10;
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
/**
 * One body SockJS reads (xhr_send, jsonp_send: a batch of messages) and one WebSocket message, in
 * bytes: a larger one is answered 413 (WebSocket: closed 1009) before it is kept. Room for a dozen
 * requests of the longest kind, or hundreds of usual ones.
 */
export const feedTransportBodyBytesMax = 65_536;
/** Requests of one connection waiting for their answers; more are refused at once (429 too_many_pending_requests). */
export const feedRequestsPendingMax = 16;
/**
 * A process without subscribers claims them this often (one statement for up to feedRelayBatchMax
 * rows, and again while batches come back full), so receipts nobody listens for are announced and
 * marked delivered at the rate sends make them instead of piling up pending (issue 36).
 */
export const feedIdleRelayIntervalMs = 1_000;
/**
 * The embedded database drops erased content (a delivered message's body) from its files this long
 * after an erasure: one vacuum, WAL switch and checkpoint for all the erasures in that time.
 */
export const pgliteErasedScrubDelayMs = 10_000;
/** A readable log line (a terminal's) shows at most this many fields, each cut to this many characters. */
export const logReadableFieldsMax = 6;
export const logFieldCharsMax = 80;
