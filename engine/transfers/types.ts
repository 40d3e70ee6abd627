// A transfer's row as read and as a new one is written: the shapes other domains use. The SQL is
// store.ts, the transfers domain's alone; others read and record transfers through its public modules.
import type { Money } from '../money.ts';

/** A transfer as read back. */
export interface TransferRow {
  id: string;
  workflow_type: string;
  sender_id: string | null;
  sender_uid: string | null;
  recipient_id: string | null;
  recipient_uid: string | null;
  sender_personal_id: string | null;
  recipient_personal_id: string | null;
  currency: string;
  amount: bigint;
  start_at: Date;
  updated_at: Date;
  end_at: Date | null;
  next_activity: string;
  completed: boolean;
  canceled: boolean;
  run_state: string;
  activity_count: number;
  reason: string | null;
  private: boolean;
  message: string | null;
  message_subject: string | null;
  appdata: Record<string, string>;
  details: Record<string, unknown>;
}

/** A new transfer's row, as a path records it (engine/transfers/gate.ts: recordTransfer). */
export interface NewTransfer {
  id: string;
  workflowType: string;
  senderId: string;
  senderUid: string;
  recipientId: string | null;
  recipientUid: string | null;
  senderPersonalId: string | null;
  recipientPersonalId: string | null;
  /** The transfer's currency and amount (the columns currency and amount). */
  money: Money;
  at: Date;
  state: { nextActivity: string; completed: boolean; canceled: boolean; runState: string };
  endAt: Date | null;
  activityCount: number;
  private: boolean;
  message: string | null;
  messageSubject: string | null;
  appdata: Record<string, string>;
  details: Record<string, unknown>;
}
