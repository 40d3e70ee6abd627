// Resolving a send's recipient UID (and the sender UID it goes out under) to a profile, or to an
// address to invite; refuses unknown, self and mismatched external UIDs.
import { sendFailure, type Failure } from '../ledger/errors.ts';
import type { ProfileRecord } from '../profiles/service.ts';
import { parseUid } from '../uids.ts';
import type { TransfersContext } from './context.ts';

const externalUidTypes = new Set(['facebook', 'twitter', 'linkedin']);

export interface ResolvedRecipient {
  uid: string;
  profile: ProfileRecord | null;
}

export async function resolveRecipient(
  ctx: TransfersContext, senderId: string, recipientUid: string, senderUid: string | undefined,
): Promise<{ ok: true; recipient: ResolvedRecipient; senderUid: string } | Failure> {
  const { core, profiles } = ctx;
  const parsed = parseUid(recipientUid);
  if (!parsed) return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { reason: 'not a UID' } }]);
  let chosenSenderUid = `service:${senderId}`;
  if (senderUid !== undefined) {
    const parsedSender = parseUid(senderUid);
    const confirmed = await profiles.confirmedUids(core.sql, senderId);
    if (!parsedSender || (parsedSender.uid !== chosenSenderUid && !confirmed.includes(parsedSender.uid))) {
      return sendFailure([{ code: 'sender_uid_not_confirmed', field_name: 'sender_uid', info: {} }]);
    }
    chosenSenderUid = parsedSender.uid;
  }
  const senderType = chosenSenderUid.slice(0, chosenSenderUid.indexOf(':'));
  if ((externalUidTypes.has(parsed.type) || externalUidTypes.has(senderType)) && parsed.type !== senderType) {
    return sendFailure([{ code: 'uid_type_mismatch', field_name: 'recipient_uid', info: { sender_uid_type: senderType, recipient_uid_type: parsed.type } }]);
  }
  const profile = await profiles.findByUid(core.database.lookups, parsed.uid);
  if (!profile && parsed.type !== 'email' && parsed.type !== 'phone') {
    return sendFailure([{ code: 'recipient_not_found', field_name: 'recipient_uid', info: { uid: parsed.uid } }]);
  }
  if (profile && profile.id === senderId) return sendFailure([{ code: 'recipient_is_sender', field_name: 'recipient_uid', info: {} }]);
  // Usernames resolve to the service UID of their profile.
  const uid = profile && (parsed.type === 'username' || parsed.type === 'service') ? `service:${profile.id}` : parsed.uid;
  return { ok: true as const, recipient: { uid, profile }, senderUid: chosenSenderUid };
}
