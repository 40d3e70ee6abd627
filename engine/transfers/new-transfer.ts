// The one builder of a new transfer's row (a leaf: types and the pure machine only). A path says
// what its transfer is, in the few fields that differ between paths; the builder fills the rest the
// same way everywhere, and takes the state fields from the transfer actor's snapshot (rowState).
import { rowState } from './machine.ts';
import type { Money } from '../money.ts';
import type { NewTransfer } from './types.ts';

/** What a path says of its transfer; what it leaves out is filled as the comments say. */
export interface TransferFields {
  workflowType: string;
  senderId: string;
  /** Default `service:<senderId>`. */
  senderUid?: string;
  recipientId: string | null;
  /** Default `service:<recipientId>`, null when there is no recipient. */
  recipientUid?: string | null;
  /** Default null. */
  senderPersonalId?: string | null;
  /** Default null. */
  recipientPersonalId?: string | null;
  /** Default true: a transfer the system makes is shown to its parties only; a caller's request gives its own. */
  private?: boolean;
  /** Default null. */
  message?: string | null;
  /** Default null. */
  messageSubject?: string | null;
  /** Default {}. */
  appdata?: Record<string, string>;
  /** Default {}. */
  details?: Record<string, unknown>;
}

/** Every field of the row but its number, time, money and state: the path's fields with the defaults filled. */
type FilledFields = Omit<NewTransfer, 'id' | 'at' | 'money' | 'state' | 'endAt' | 'activityCount'>;

/** The path's fields with the defaults filled (named one by one: nothing else a path passes reaches the row). */
export function transferFields(fields: TransferFields): FilledFields {
  const { workflowType, senderId, recipientId } = fields;
  return {
    workflowType, senderId, senderUid: fields.senderUid ?? `service:${senderId}`,
    recipientId, recipientUid: fields.recipientUid !== undefined ? fields.recipientUid : recipientId === null ? null : `service:${recipientId}`,
    senderPersonalId: fields.senderPersonalId ?? null, recipientPersonalId: fields.recipientPersonalId ?? null,
    private: fields.private ?? true, message: fields.message ?? null, messageSubject: fields.messageSubject ?? null,
    appdata: fields.appdata ?? {}, details: fields.details ?? {},
  };
}

/** A new transfer's row: its number, time and money, the path's fields, and the state of the actor the path created for it. */
export function newTransfer(
  head: { id: string; at: Date; money: Money }, fields: TransferFields,
  snapshot: { value: unknown; context: { endAt: string | null; activityCount: number } },
): NewTransfer {
  return { id: head.id, ...transferFields(fields), money: head.money, at: head.at, ...rowState(snapshot) };
}
