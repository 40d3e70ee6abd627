// Bounds of brand cash and offers: designs, images, plans, bills, campaigns, reminders, offers.
// Units come last in each name. engine/limits.ts re-exports this file: import the constants from there.

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
