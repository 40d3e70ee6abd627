// Bounds of moving cash: invitations, search and history, messages, transfers, the ledger, trades, the point of sale, paycards, funding proxies.
// Units come last in each name. engine/limits.ts re-exports this file: import the constants from there.

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
 * history_sync's `remain` is exact when at most this many transfers lie after the page's end (counted
 * from the indexes, stopped at this bound plus one); above it, Postgres's estimate, never within the
 * bound. No page costs a full count of a long history (migration 1060, docs/decisions.md).
 */
export const syncRemainExactMax = 10_000;
export const redeemersListMax = 100;

// Messages
export const sendMessageCharsMax = 10_000;
export const sendMessageSubjectCharsMax = 100;
export const designMessageCharsMax = 1000;

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

// ACH funding proxies (/fundproxy/get-ach, engine/fundproxy).
/** Digits of a proxy's account number. */
export const fundProxyAccountDigits = 12;
/** An ACH trace number (the deposit's idempotency key). */
export const fundProxyTraceCharsMax = 32;
