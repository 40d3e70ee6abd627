// Wire shapes of transfers: Transfer (supplement 2.8), Movement (2.9), TransferDetail (2.10) and
// PaymentCode (2.11). Pure functions over rows.
import { formatMinor } from '../money.ts';
import { parseUid } from '../uids.ts';
import type { MovementRow } from '../ledger/types.ts';
import type { NewTransfer, PaycodeRow, TransferRow } from './store.ts';

export interface PartyInfo {
  title: string;
  screen_name: string;
  is_individual: boolean;
  uid_value: string;
  uid_type: string;
  original: string;
}

/** A stakeholder as TransferDetail names it (the profile's service UID). */
export function partyFromProfile(id: string, title: string, username: string | null, isIndividual: boolean): PartyInfo {
  return { title, screen_name: username ?? '', is_individual: isIndividual, uid_value: id, uid_type: 'service', original: id };
}

/**
 * A party without a wallet yet (an invitation's recipient): the invited address in human form, a
 * person until they sign up. Clients read `title` and `is_individual` on every transfer.
 */
function partyFromUid(uid: string | null): PartyInfo {
  const text = uid ?? '';
  const colon = text.indexOf(':');
  const type = colon < 0 ? '' : text.slice(0, colon);
  const value = colon < 0 ? text : text.slice(colon + 1);
  const original = type === 'phone' ? (parseUid(text)?.original ?? value) : value;
  return { title: original, screen_name: '', is_individual: true, uid_value: value, uid_type: type, original };
}

/** The steps a transfer has gone through, for steps_html. */
export function steps(row: TransferRow): string[] {
  const list = ['Sent'];
  if (row.next_activity === 'paycode.wait') list.push('Waiting for a payment code');
  if (row.next_activity === 'invite.wait') list.push('Waiting for the recipient to accept the invitation');
  if (row.next_activity === 'hold') list.push('Holding before the exchange');
  if (row.next_activity === 'trade.wait') list.push('Waiting for the recipient to accept the trade');
  if (row.next_activity === 'send_to_dfi') list.push('Sending to the bank');
  if (row.completed) list.push('Completed');
  if (row.canceled) list.push(`Canceled${row.reason ? ` (${row.reason})` : ''}`);
  return list;
}

/** Orders object keys as jsonb stores them (shorter first, then bytewise), recursively. */
function byteOrder(left: string, right: string): number {
  return Buffer.byteLength(left) - Buffer.byteLength(right) || Buffer.compare(Buffer.from(left), Buffer.from(right));
}

function asJsonb<T>(value: T): T {
  if (Array.isArray(value)) return value.map(asJsonb) as T;
  if (value === null || typeof value !== 'object') return value;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(byteOrder)) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) ordered[key] = asJsonb(item);
  }
  return ordered as T;
}

/** The row a transfer insert writes, as selectTransfer would read it back. */
export function insertedRow(transfer: NewTransfer): TransferRow {
  return {
    id: transfer.id,
    workflow_type: transfer.workflowType,
    sender_id: transfer.senderId,
    sender_uid: transfer.senderUid,
    recipient_id: transfer.recipientId,
    recipient_uid: transfer.recipientUid,
    sender_personal_id: transfer.senderPersonalId,
    recipient_personal_id: transfer.recipientPersonalId,
    currency: transfer.money.currency,
    amount: transfer.money.minor,
    start_at: transfer.at,
    updated_at: transfer.at,
    end_at: transfer.endAt,
    next_activity: transfer.state.nextActivity,
    completed: transfer.state.completed,
    canceled: transfer.state.canceled,
    run_state: transfer.state.runState,
    activity_count: transfer.activityCount,
    reason: null,
    private: transfer.private,
    message: transfer.message,
    message_subject: transfer.messageSubject,
    // Stored as jsonb: read back, their keys come in jsonb's order.
    appdata: asJsonb(transfer.appdata),
    details: asJsonb(transfer.details),
  };
}

function movementsJson(rows: readonly MovementRow[]): Record<string, unknown>[] {
  const byNumber = new Map<number, Record<string, unknown> & { loops: Record<string, unknown>[] }>();
  for (const row of rows) {
    let movement = byNumber.get(row.number);
    if (!movement) {
      movement = { number: row.number, timestamp: row.at.toISOString(), action: row.action, from_id: row.from_id, to_id: row.to_id, loops: [] };
      byNumber.set(row.number, movement);
    }
    movement.loops.push({ loop_id: row.loop_id, currency: row.currency, amount: formatMinor(row.amount, row.currency), issuer_id: row.issuer_id });
  }
  return [...byNumber.values()].sort((left, right) => (left.number as number) - (right.number as number));
}

export function transferJson(row: TransferRow, movements: readonly MovementRow[], parties: Map<string, PartyInfo>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: row.id,
    workflow_type: row.workflow_type,
    start: row.start_at.toISOString(),
    timestamp: row.updated_at.toISOString(),
    currency: row.currency,
    amount: formatMinor(row.amount, row.currency),
    next_activity: row.next_activity,
    completed: row.completed,
    canceled: row.canceled,
    reason: row.reason,
    sender_id: row.sender_id,
    sender_uid: row.sender_uid,
    sender_info: (row.sender_id && parties.get(row.sender_id)) || partyFromUid(row.sender_uid),
    recipient_id: row.recipient_id,
    recipient_uid: row.recipient_uid,
    recipient_info: (row.recipient_id && parties.get(row.recipient_id)) || partyFromUid(row.recipient_uid),
    sender_is_dfi_account: false,
    recipient_is_dfi_account: row.workflow_type === 'redeem' || row.workflow_type === 'fxdeposit',
    movements: movementsJson(movements),
    bundled_transfers: null,
    bundle_transfer_id: null,
  };
  if (row.details.sent_count !== undefined) body.sent_count = row.details.sent_count;
  for (const [name, value] of Object.entries(row.appdata)) body[`appdata.${name}`] = value;
  return body;
}

function paycodeJson(row: PaycodeRow, publicUrl: string): Record<string, unknown> {
  return {
    code: row.code,
    transfer_id: row.transfer_id,
    currency: row.currency,
    amount: formatMinor(row.amount, row.currency),
    created: row.created_at.toISOString(),
    modified: row.modified_at.toISOString(),
    expires: row.expires_at.toISOString(),
    sender_id: row.sender_id,
    recipient_id: row.recipient_id,
    // The transfer as its sender reads it (GET /t/<id> with the sender's token shows the code).
    url: `${publicUrl}/t/${row.transfer_id}`,
  };
}

const detailKeys = [
  'total_due', 'total_tax', 'amount_received', 'rdfi_name', 'account_number_redacted', 'redeem_amount', 'fee_amount', 'ach_type', 'effective_date',
  'hold_seconds', 'holding_until', 'dest_amount', 'dest_currency', 'source_amount', 'source_currency', 'source_amount_without_fee', 'fx_rate',
  'fx_quote_id', 'fx_holder_id', 'dfi_error', 'dfi_result', 'invitation_code', 'offer_name', 'fee_option_name',
];

export function transferDetailJson(
  row: TransferRow,
  movements: readonly MovementRow[],
  parties: Map<string, PartyInfo>,
  extra: { viewerId: string; paycode: PaycodeRow | null; publicUrl: string; stakeholders: { profile_id: string; role: string }[]; steps: string[] },
): Record<string, unknown> {
  const body = transferJson(row, movements, parties);
  body.end = row.end_at?.toISOString() ?? null;
  body.run_state = row.run_state;
  body.activity_count = row.activity_count;
  body.sender_personal_id = row.sender_personal_id;
  body.recipient_personal_id = row.recipient_personal_id;
  body.private = row.private;
  body.posts = [];
  body.steps_html = extra.steps.length > 0 ? `<ol>${extra.steps.map((step) => `<li>${step}</li>`).join('')}</ol>` : '';
  const showCode = extra.paycode !== null && extra.paycode.sender_id === extra.viewerId && extra.paycode.state === 'active';
  body.payment_codes = showCode ? [paycodeJson(extra.paycode!, extra.publicUrl)] : [];
  body.loyalty = [];
  const roles = new Map<string, string[]>();
  for (const stakeholder of extra.stakeholders) roles.set(stakeholder.profile_id, [...(roles.get(stakeholder.profile_id) ?? []), stakeholder.role]);
  body.stakeholders = [...roles.entries()].map(([id, list]) => ({ id, roles: list }));
  body.alarms = row.details.alarms ?? [];
  body.message = row.message ?? '';
  if (row.message_subject !== null) body.message_subject = row.message_subject;
  // A receipt without total_due or total_tax stores null for them: the TransferDetail omits them.
  for (const key of detailKeys) {
    const value = row.details[key];
    if (value !== undefined && !(value === null && (key === 'total_due' || key === 'total_tax'))) body[key] = value;
  }
  return body;
}
