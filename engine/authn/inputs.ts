// Pure helpers on what a caller sends: which UID types take a code, a login as an attempt keeps it,
// the address a UID's message goes to, and a code as the caller typed it.
import type { ParsedUid } from '../uids.ts';
import type { LoginInfo } from './machine.ts';

export const codeTypes = new Set(['email', 'phone']);

export function addressOf(uid: string): string {
  return uid.slice(uid.indexOf(':') + 1);
}

export function loginInfo(parsed: ParsedUid): LoginInfo {
  return { uid: parsed.uid, type: parsed.type, original: parsed.original, country: parsed.country };
}

export function normalizeCode(code: string): string {
  return code.replace(/[\s-]/g, '').toUpperCase();
}
