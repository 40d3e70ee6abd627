// The operations of api/routes/offers.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { edgeErrors } from '../http/errors.ts';
import { ledgerErrors } from '../routes/ledger-errors.ts';
import { offerErrors } from '../routes/offers.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const offerDocs: OperationDocs = {
  getOfferList: {
    description:
      "The offers the caller manages (its own, and those paying in designs it may edit), each with loop_links.",
    example: {},
    errors: [],
  },
  getOfferFind: {
    description:
      "Finds open offers by text, distance and filters; limit and offset count businesses. Ordered by distance when latitude and longitude are given, else by relevance, else by title. No credentials needed; a bearer token, when sent, must be valid and lets the viewer's own offers show.",
    example: {},
    errors: [...pick(edgeErrors, 'token_not_recognized', 'token_expired_soft', 'token_expired_hard', 'token_invalid')],
  },
  postOfferCreate: {
    description:
      "Creates an offer (a Cashloop call; the spec has none): a title, an amount paid to each acceptor, a quantity in stock and optional options, place and dates. Needs the business's own token, or edit_design on the design it pays in.",
    example: { title: 'Free coffee', amount: '3.00', quantity: 100 },
    errors: [...pick(offerErrors, 'offer_forbidden')],
  },
  getOfferConfirmByCode: {
    description:
      "The link in an offer confirmation email: confirms the email address and completes the accept that waited for it. No credentials: the code is the secret.",
    example: { code: 'c0nf1rmc0de' },
    errors: [...pick(offerErrors, 'confirmation_not_found', 'transfer_failed')],
  },
  getOfferInfo: {
    description:
      "One offer (OfferDetail) and the loops it pays in. No credentials.",
    example: { offerId: '1234567890' },
    errors: [...pick(offerErrors, 'offer_not_found')],
  },
  patchOfferByOfferId: {
    description:
      "Edits an open offer; a new quantity moves the stock left by the same difference, never below zero.",
    example: { offerId: '1234567890', title: 'Free coffee' },
    errors: [...pick(offerErrors, 'offer_not_found', 'offer_forbidden', 'offer_closed')],
  },
  postOfferClose: {
    description:
      "Closes an offer for good; confirmations already waiting can still complete.",
    example: { offerId: '1234567890' },
    errors: [...pick(offerErrors, 'offer_not_found', 'offer_forbidden', 'offer_closed')],
  },
  postOfferAccept: {
    description:
      "Accepts an offer: the stock falls and the cash moves to the acceptor in one transaction. An offer that requires confirmation waits for the emailed link. When the business cannot pay, the answer is 503 transfer_failed with the canceled transfer.",
    example: { offerId: '1234567890', option_id: 'o1' },
    errors: [...pick(offerErrors, 'offer_not_found', 'transfer_failed', 'offer_forbidden', 'offer_closed', 'offer_not_available', 'sold_out', 'paycard_not_supported'), ...pick(ledgerErrors, 'send_failed'), ...pick(ledgerErrors, 'dedup_id_reused')],
  },
  postOfferSignupAccept: {
    description:
      "Signs a person up through a public app, sets their 4-digit PIN, accepts the offer and answers a token with the signup_accept permissions: an offer taken in one call.",
    example: { offerId: '1234567890', option_id: 'o1', first_name: 'Pat', last_name: 'Lee', app_id: '12345', pin: '1234', device_name: 'Pat phone', device_uuid: 'device-1', agreed_terms_and_privacy: true, email: 'sam@example.com' },
    errors: [...pick(offerErrors, 'offer_not_found', 'transfer_failed', 'offer_closed', 'offer_not_available', 'sold_out', 'named_app_not_found', 'app_not_public')],
  },
  getAdminOffers: {
    description:
      "Offers, newest first, optionally of one business or in one state. Operator key (the CLI drives it).",
    example: {},
    errors: [],
  },
  postAdminOffers: {
    description:
      "Creates an offer for a business (profile_id, or the issuer of design_id); an individual cannot publish offers. Operator key (the CLI drives it).",
    example: { title: 'Free coffee', amount: '3.00', quantity: 100, profile_id: '1234567890' },
    errors: [...pick(offerErrors, 'offer_forbidden')],
  },
  getAdminOffersByOfferId: {
    description:
      "One offer in full. Operator key (the CLI drives it).",
    example: { offerId: '1234567890' },
    errors: [...pick(offerErrors, 'offer_not_found')],
  },
  postAdminOffersClose: {
    description:
      "Closes an offer for good; confirmations already waiting can still complete. Operator key (the CLI drives it).",
    example: { offerId: '1234567890' },
    errors: [...pick(offerErrors, 'offer_not_found', 'offer_forbidden', 'offer_closed')],
  },
};
