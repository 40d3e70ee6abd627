// Paycards: link (the simulated card network tokenizes the number; only the token, the last four
// digits and the PIN's hash are kept), list, delete, set the PIN, suspend and unsuspend. Each card
// is an actor; every change goes through the command path.
import { randomBytes } from 'node:crypto';
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { installationKeyBytes, paycardPinDigits, paycardsPerWalletMax } from '../limits.ts';
import { hashSecret } from '../passwords.ts';
import { installationSecret } from '../storage/installation-store.ts';
import type { PaycardFailure } from './errors.ts';
import { paycardKind, type PaycardEvent, type PaycardState } from './machine.ts';
import { luhnValid, simulatedCardNetwork, type CardNetwork } from './network.ts';
import * as store from './store.ts';


export interface PaycardJson {
  card_id: string;
  pan_redacted: string;
  suspended: boolean;
  expiration: string;
}

export interface PaycardsService {
  list(profileId: string): Promise<PaycardJson[]>;
  link(profileId: string, input: { pan: string; pin: string }): Promise<{ ok: true; linked: boolean; card?: PaycardJson } | PaycardFailure>;
  change(profileId: string, cardId: string, change: 'delete' | 'suspend' | 'unsuspend'): Promise<{ ok: true } | PaycardFailure>;
  setPin(profileId: string, cardId: string, pin: string): Promise<{ ok: true } | PaycardFailure>;
  /** The card network asks whether a card may pay: a suspended or deleted card may not. */
  authorize(cardId: string): Promise<{ approved: boolean; reason: string | null }>;
}

const invalid = (field: string, message: string): PaycardFailure => ({ ok: false, error: 'invalid', invalid: { [field]: message } });

export function cardJson(row: store.PaycardRow): PaycardJson {
  return { card_id: row.card_id, pan_redacted: `${'X'.repeat(row.pan_length - 4)}${row.last4}`, suspended: row.state === 'suspended', expiration: row.expiration };
}

function pinProblem(pin: string): PaycardFailure | null {
  return new RegExp(`^\\d{${paycardPinDigits}}$`).test(pin) ? null : invalid('pin', `must be ${paycardPinDigits} digits`);
}

export function createPaycardsService(core: Core): PaycardsService {
  const { sql, commands } = core;
  let network: CardNetwork | undefined;
  const networkOf = async () => (network ??= simulatedCardNetwork(await installationSecret(sql, 'paycard_token_key', randomBytes(installationKeyBytes).toString('hex'), core.clock.now())));

  async function ownCard(profileId: string, cardId: string): Promise<store.PaycardRow | PaycardFailure> {
    const row = /^[0-9a-f]{16}$/.test(cardId) ? await store.selectCard(sql, cardId) : null;
    // Another wallet's card answers as not found, so card ids cannot be probed.
    if (!row || row.profile_id !== profileId || row.state === 'deleted') return { ok: false, error: 'card_not_found' };
    return row;
  }

  return {
    async list(profileId) {
      return (await store.selectCards(sql, profileId, paycardsPerWalletMax)).map(cardJson);
    },

    async link(profileId, input) {
      const pan = input.pan.replace(/[\s-]/g, '');
      if (!luhnValid(pan)) return invalid('pan', 'is not a valid card number');
      const pinRefused = pinProblem(input.pin);
      if (pinRefused) return pinRefused;
      const decision = (await networkOf()).link(pan, core.clock.now());
      if (!decision.approved) return { ok: true, linked: false };
      const pinHash = await hashSecret(input.pin);
      return commands.run('paycard.link', [{ kind: 'wallet', id: profileId }], async (unit: Unit<PaycardFailure>) => {
        if ((await store.selectCards(unit.tx, profileId, paycardsPerWalletMax)).length >= paycardsPerWalletMax) {
          return unit.reject({ ok: false, error: 'too_many_cards', description: `A wallet links at most ${paycardsPerWalletMax} cards.` });
        }
        const cardId = randomBytes(8).toString('hex');
        const row = { card_id: cardId, profile_id: profileId, network_token: decision.token, last4: decision.last4, pan_length: pan.length, expiration: decision.expiration, pin_hash: pinHash };
        // The same number linked twice to one wallet stays one card.
        if (!(await store.insertCard(unit.tx, row, unit.now))) return { ok: true as const, linked: true };
        unit.create(paycardKind, cardId, { profileId, at: unit.now.toISOString() });
        return { ok: true as const, linked: true, card: cardJson({ ...row, state: 'active', created_at: unit.now }) };
      });
    },

    async change(profileId, cardId, change) {
      const found = await ownCard(profileId, cardId);
      if ('error' in found) return found;
      return commands.run(`paycard.${change}`, [{ kind: paycardKind.kind, id: cardId }], async (unit) => {
        await unit.load(paycardKind, cardId);
        const event: PaycardEvent = { type: `paycard.${change}`, at: unit.now.toISOString() } as PaycardEvent;
        const next = unit.send(paycardKind, cardId, event);
        // Suspending a suspended card (or unsuspending an active one) changes nothing and is not an error.
        if (next) await store.updateCard(unit.tx, cardId, { state: next.value as PaycardState }, unit.now);
        return { ok: true as const };
      });
    },

    async setPin(profileId, cardId, pin) {
      const pinRefused = pinProblem(pin);
      if (pinRefused) return pinRefused;
      const found = await ownCard(profileId, cardId);
      if ('error' in found) return found;
      const pinHash = await hashSecret(pin);
      return commands.run('paycard.set_pin', [{ kind: paycardKind.kind, id: cardId }], async (unit) => {
        await store.updateCard(unit.tx, cardId, { pinHash }, unit.now);
        return { ok: true as const };
      });
    },

    async authorize(cardId) {
      const row = /^[0-9a-f]{16}$/.test(cardId) ? await store.selectCard(sql, cardId) : null;
      return (await networkOf()).authorize(row?.state ?? 'deleted');
    },
  };
}
