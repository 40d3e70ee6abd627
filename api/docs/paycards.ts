// The operations of api/routes/paycards.ts: description, example request and domain errors (api/http/operation-docs.ts).
import { paycardErrors } from '../routes/paycards.ts';
import { pick, type OperationDocs } from '../http/operation-docs.ts';

export const paycardDocs: OperationDocs = {
  getWalletPaycardList: {
    description:
      "The payment cards linked to the wallet, with their state (active, suspended); never the full card number.",
    example: {},
    errors: [],
  },
  postWalletPaycardLink: {
    description:
      "Links a payment card by number and 4-digit PIN. The simulated card network may decline it: linked false, nothing stored.",
    example: { pan: '4000001234567899', pin: '1234' },
    errors: [...pick(paycardErrors, 'too_many_cards')],
  },
  postWalletPaycardDelete: {
    description:
      "Deletes a linked card; it can no longer pay.",
    example: { card_id: 'card-1' },
    errors: [...pick(paycardErrors, 'card_not_found', 'card_deleted')],
  },
  postWalletPaycardSuspend: {
    description:
      "Suspends a linked card; the network refuses its payments until it is unsuspended.",
    example: { card_id: 'card-1' },
    errors: [...pick(paycardErrors, 'card_not_found', 'card_deleted')],
  },
  postWalletPaycardUnsuspend: {
    description:
      "Unsuspends a suspended card: the card network accepts its payments again.",
    example: { card_id: 'card-1' },
    errors: [...pick(paycardErrors, 'card_not_found', 'card_deleted')],
  },
  postWalletPaycardSetPin: {
    description:
      "Sets a linked card's 4-digit PIN; only its hash is kept.",
    example: { card_id: 'card-1', pin: '1234' },
    errors: [...pick(paycardErrors, 'card_not_found', 'card_deleted')],
  },
  postAdminPaycardsAuthorize: {
    description:
      "The simulated card network asks whether a card may pay: a suspended or deleted card may not. Operator key (the CLI drives it).",
    example: { card_id: 'card-1' },
    errors: [],
  },
};
