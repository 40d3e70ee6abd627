// Where an invitation goes: an email and/or a phone parsed into UIDs, and the heuristic that tells a
// personal address from a company's.
import { parseEmail, parsePhone } from '../uids.ts';
import type { InvitationAddress } from './machine.ts';

const personalDomains = new Set([
  'gmail.com', 'googlemail.com', 'yahoo.com', 'ymail.com', 'hotmail.com', 'outlook.com', 'live.com', 'msn.com', 'icloud.com',
  'me.com', 'mac.com', 'aol.com', 'proton.me', 'protonmail.com', 'gmx.com', 'gmx.net', 'mail.com', 'yandex.com', 'zoho.com',
  'comcast.net', 'verizon.net', 'att.net', 'sbcglobal.net', 'example.com', 'example.org',
]);
const roleMailboxes = /^(info|sales|support|admin|contact|office|billing|accounts|hello|team|hr|jobs|noreply|no-reply)$/i;

/** A heuristic: phones and mailboxes at consumer email providers are personal; role mailboxes and company domains are not. */
export function isPersonalAddress(email: string | null, hasPhone: boolean): boolean {
  if (!email) return hasPhone;
  const [local, domain = ''] = email.toLowerCase().split('@');
  if (roleMailboxes.test(local)) return false;
  return personalDomains.has(domain);
}

export function parseAddresses(email: string | null | undefined, phone: string | null | undefined, countries: readonly string[]): { addresses: InvitationAddress[] } | { invalid: Record<string, string> } {
  const addresses: InvitationAddress[] = [];
  if (email) {
    const parsed = parseEmail(email);
    if (!parsed) return { invalid: { email: 'is not an email address' } };
    addresses.push({ uid: parsed.uid, original: parsed.original });
  }
  if (phone) {
    const parsed = parsePhone(phone, countries);
    if (!parsed) return { invalid: { phone: 'is not a phone number' } };
    addresses.push({ uid: parsed.uid, original: parsed.original });
  }
  return { addresses };
}
