// Field rules of profile creation: person names (start with a letter, nothing from U+2000 to
// U+2FFF), business descriptions (basic tags only), usernames.
import sanitizeHtml from 'sanitize-html';
import { defaultCountries, personNameCharsMax } from '../limits.ts';
import { parseLogin } from '../uids.ts';

/** A message for the first rule a person's name breaks, or null when it is acceptable. */
export function personNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed.length === 0) return 'is required';
  if ([...trimmed].length > personNameCharsMax) return `must be at most ${personNameCharsMax} characters`;
  if (!/^\p{L}/u.test(trimmed)) return 'must start with a letter';
  if (/[\u2000-\u2fff]/u.test(trimmed)) return 'contains characters that are not allowed';
  return null;
}

/** Keeps only p, strong, em, ul, ol, li and links (http, https, mailto). */
export function sanitizeDescription(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: ['p', 'strong', 'em', 'ul', 'ol', 'li', 'a'],
    allowedAttributes: { a: ['href'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    disallowedTagsMode: 'discard',
  });
}

export const usernamePattern = /^[A-Za-z][A-Za-z0-9_.-]{0,99}$/;

/**
 * The canonical UID of what a caller typed: a typed UID (`email:…`), a bare profile id (10
 * digits; E.164 phones start with +), an email, a phone or a username. Null when unreadable.
 */
export function canonicalUidOf(text: string, countries: readonly string[] = defaultCountries): string | null {
  const trimmed = text.trim();
  if (/^\d{10}$/.test(trimmed)) return `service:${trimmed}`;
  return parseLogin(trimmed, countries)?.uid ?? null;
}
