// The simulated card network: it checks a card number, tokenizes it and decides links,
// suspensions and payment authorizations. Deterministic test numbers (docs/paycards-and-funding.md):
//   - a number failing the Luhn check is refused before the network is asked;
//   - numbers ending in 0002 are declined by the issuing bank (link answers linked: false);
//   - numbers ending in 0069 are expired cards (declined);
//   - every other Luhn-valid number of 12 to 19 digits links, expiring three years after linking.
import { createHmac } from 'node:crypto';

export function luhnValid(pan: string): boolean {
  if (!/^\d{12,19}$/.test(pan)) return false;
  let sum = 0;
  for (let index = 0; index < pan.length; index++) {
    let digit = Number(pan[pan.length - 1 - index]);
    if (index % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

export type LinkDecision = { approved: true; token: string; last4: string; expiration: string } | { approved: false; reason: 'declined' | 'expired_card' };

export interface CardNetwork {
  link(pan: string, now: Date): LinkDecision;
  /** Whether a card in this state may pay (a suspended or deleted card may not). */
  authorize(state: string): { approved: boolean; reason: string | null };
}

export function simulatedCardNetwork(tokenKey: string): CardNetwork {
  return {
    link(pan, now) {
      if (pan.endsWith('0002')) return { approved: false, reason: 'declined' };
      if (pan.endsWith('0069')) return { approved: false, reason: 'expired_card' };
      const expires = new Date(Date.UTC(now.getUTCFullYear() + 3, now.getUTCMonth(), 1));
      return {
        approved: true,
        token: createHmac('sha256', tokenKey).update(pan).digest('hex'),
        last4: pan.slice(-4),
        expiration: `${expires.getUTCFullYear()}-${String(expires.getUTCMonth() + 1).padStart(2, '0')}`,
      };
    },
    authorize(state) {
      if (state === 'active') return { approved: true, reason: null };
      return { approved: false, reason: state === 'suspended' ? 'card_suspended' : 'card_holder_not_found' };
    },
  };
}
