// UIDs: `<type>:<value>`. Emails are lower-cased, phones normalised to E.164, usernames
// lower-cased; `service:<profile id>` names a profile directly.
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { defaultCountries, loginCharsMax, usernameCharsMax } from './limits.ts';

export type UidType = 'service' | 'username' | 'email' | 'phone' | 'facebook' | 'twitter' | 'linkedin';

export interface ParsedUid {
  type: UidType;
  /** Normalised value: the canonical UID is `${type}:${value}`. */
  value: string;
  uid: string;
  /** The human form (formatted phone, email as typed). */
  original: string;
  /** The phone's country, or null. */
  country: string | null;
}

// An address our transports can deliver to without SMTPUTF8: an ASCII dot-atom local part (at
// most 64 characters) and a domain of letter-digit-hyphen labels (IDNs in their xn-- form) ending
// in an alphabetic top-level label; 254 characters in all.
const emailLocalPattern = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const emailDomainPattern = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;
const emailPattern = {
  test(text: string): boolean {
    const at = text.lastIndexOf('@');
    if (at < 1 || text.length > 254) return false;
    const local = text.slice(0, at);
    const domain = text.slice(at + 1);
    return local.length <= 64 && domain.length <= 253 && emailLocalPattern.test(local) && emailDomainPattern.test(domain);
  },
};
const usernamePattern = new RegExp(`^[A-Za-z0-9_.-]{1,${usernameCharsMax}}$`);
const profileIdPattern = /^\d{1,20}$/;
// For numbers outside any assigned range (test numbers such as 555-0100), the main country.
const mainCountryByCallingCode: Record<string, string> = { '1': 'US', '7': 'RU', '44': 'GB', '61': 'AU' };
const externalTypes = new Set(['facebook', 'twitter', 'linkedin']);

function build(type: UidType, value: string, original: string, country: string | null): ParsedUid {
  return { type, value, uid: `${type}:${value}`, original, country };
}

export function parseEmail(text: string): ParsedUid | null {
  const trimmed = text.trim();
  if (trimmed.length > loginCharsMax || !emailPattern.test(trimmed)) return null;
  return build('email', trimmed.toLowerCase(), trimmed, null);
}

/** Parses a phone in E.164 or in the national format of one of the countries (default US). */
export function parsePhone(text: string, countries: readonly string[] = defaultCountries): ParsedUid | null {
  const trimmed = text.trim();
  if (trimmed.length > loginCharsMax || !/^[+\d\s().-]{4,}$/.test(trimmed)) return null;
  const tries = trimmed.startsWith('+') ? [undefined] : countries.length > 0 ? countries : defaultCountries;
  for (const country of tries) {
    const phone = parsePhoneNumberFromString(trimmed, country as CountryCode | undefined);
    if (phone && phone.isPossible()) {
      const detected = phone.country ?? phone.getPossibleCountries()[0] ?? country ?? mainCountryByCallingCode[phone.countryCallingCode] ?? null;
      return build('phone', phone.number, phone.formatNational(), detected);
    }
  }
  return null;
}

/**
 * Parses a phone in every given country: one result per country whose rules make it a possible
 * number, without repeats (US and CA share +1, so '202 555 0123' is one number). An E.164 phone
 * is one number whatever the countries.
 */
export function parsePhoneEverywhere(text: string, countries: readonly string[] = defaultCountries): ParsedUid[] {
  if (text.trim().startsWith('+')) {
    const parsed = parsePhone(text);
    return parsed ? [parsed] : [];
  }
  const found = new Map<string, ParsedUid>();
  for (const country of countries.length > 0 ? countries : defaultCountries) {
    const parsed = parsePhone(text, [country]);
    if (parsed && !found.has(parsed.uid)) found.set(parsed.uid, parsed);
  }
  return [...found.values()];
}

/** Parses a login as people type it: an email, a phone number, or a username. */
export function parseLogin(text: string, countries: readonly string[] = defaultCountries): ParsedUid | null {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > loginCharsMax) return null;
  if (trimmed.includes(':')) return parseUid(trimmed, countries);
  if (trimmed.includes('@')) return parseEmail(trimmed);
  if (/^[+\d\s().-]+$/.test(trimmed)) return parsePhone(trimmed, countries);
  if (usernamePattern.test(trimmed)) return build('username', trimmed.toLowerCase(), trimmed, null);
  return null;
}

/** Parses a typed UID `<type>:<value>`. */
export function parseUid(text: string, countries: readonly string[] = defaultCountries): ParsedUid | null {
  const colon = text.indexOf(':');
  if (colon <= 0) return null;
  const type = text.slice(0, colon).toLowerCase();
  const value = text.slice(colon + 1).trim();
  if (value.length === 0 || value.length > loginCharsMax) return null;
  switch (type) {
    case 'email':
      return parseEmail(value);
    case 'phone':
      return parsePhone(value, countries);
    case 'username':
      return usernamePattern.test(value) ? build('username', value.toLowerCase(), value, null) : null;
    case 'service':
      return profileIdPattern.test(value) ? build('service', value, value, null) : null;
    default:
      return externalTypes.has(type) ? build(type as UidType, value, value, null) : null;
  }
}
