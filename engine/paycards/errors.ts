// Named outcomes of paycard calls; api/routes/paycards.ts maps each once.
export type PaycardError = 'invalid' | 'card_not_found' | 'card_deleted' | 'not_allowed' | 'too_many_cards';

export type PaycardFailure = { ok: false; error: PaycardError; invalid?: Record<string, string>; description?: string };
