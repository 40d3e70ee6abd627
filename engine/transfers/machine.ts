// The transfer machine: pure. A transfer starts waiting (for an invited recipient, a payment code,
// an exchange hold or a bank payout) or completes at once; every activity counts, `end` is set once.
import { assign, setup } from 'xstate';
import { defineActorKind } from '../actors/actor.ts';

export type WaitFor = 'none' | 'invite' | 'paycode' | 'hold' | 'payout' | 'trade' | 'bill';

interface TransferContext {
  workflowType: string;
  waitFor: WaitFor;
  activityCount: number;
  endAt: string | null;
  reason: string | null;
  sentCount: number;
  paycodeExpiresAt: string | null;
  holdingUntil: string | null;
  dfiError: { error: string; message: string } | null;
  dfiResult: Record<string, unknown> | null;
  /** Bills: reminders sent, and when the customer said payment was sent (absent on older snapshots). */
  reminderCount?: number;
  billConfirmedAt?: string | null;
}

export interface TransferInput {
  workflowType: string;
  waitFor: WaitFor;
  at: string;
  paycodeExpiresAt?: string | null;
  holdingUntil?: string | null;
}

export type TransferEvent =
  | { type: 'transfer.invite_accept'; at: string }
  | { type: 'transfer.invite_refuse'; at: string }
  | { type: 'transfer.invite_resend'; at: string }
  | { type: 'transfer.invite_expire'; at: string }
  | { type: 'transfer.paycode_receive'; at: string }
  | { type: 'transfer.paycode_correct'; at: string }
  | { type: 'transfer.paycode_extend'; at: string; expiresAt: string }
  | { type: 'transfer.paycode_expire'; at: string }
  | { type: 'transfer.skip'; at: string }
  | { type: 'transfer.hold_end'; at: string }
  | { type: 'transfer.payout_succeeded'; at: string; result: Record<string, unknown> }
  | { type: 'transfer.payout_failed'; at: string; error: string; message: string }
  | { type: 'transfer.trade_accept'; at: string }
  | { type: 'transfer.trade_expire'; at: string }
  | { type: 'transfer.bill_pay'; at: string }
  | { type: 'transfer.bill_confirm'; at: string }
  | { type: 'transfer.bill_remind'; at: string }
  | { type: 'transfer.bill_expire'; at: string }
  | { type: 'transfer.retract'; at: string; reason: string };

export const transferMachine = setup({
  types: {
    context: {} as TransferContext,
    events: {} as TransferEvent,
    input: {} as TransferInput,
  },
  guards: {
    waitsForInvite: ({ context }) => context.waitFor === 'invite',
    waitsForPaycode: ({ context }) => context.waitFor === 'paycode',
    waitsForHold: ({ context }) => context.waitFor === 'hold',
    waitsForPayout: ({ context }) => context.waitFor === 'payout',
    waitsForTrade: ({ context }) => context.waitFor === 'trade',
    waitsForBill: ({ context }) => context.waitFor === 'bill',
  },
  actions: {
    count: assign({ activityCount: ({ context }) => context.activityCount + 1 }),
    end: assign({
      activityCount: ({ context }) => context.activityCount + 1,
      endAt: ({ context, event }) => context.endAt ?? event.at,
    }),
    recordReason: assign({ reason: ({ event }) => (event.type === 'transfer.retract' ? event.reason : null) }),
    recordRefusal: assign({ reason: () => 'refused' }),
    recordExpiry: assign({ reason: () => 'expired' }),
    recordReminder: assign({ reminderCount: ({ context }) => (context.reminderCount ?? 0) + 1 }),
    recordBillConfirmed: assign({ billConfirmedAt: ({ context, event }) => context.billConfirmedAt ?? event.at }),
    recordSent: assign({ sentCount: ({ context }) => context.sentCount + 1 }),
    recordPaycodeExpiry: assign({ paycodeExpiresAt: ({ context, event }) => (event.type === 'transfer.paycode_extend' ? event.expiresAt : context.paycodeExpiresAt) }),
    recordDfiResult: assign({ dfiResult: ({ event }) => (event.type === 'transfer.payout_succeeded' ? event.result : null) }),
    recordDfiError: assign({
      dfiError: ({ event }) => (event.type === 'transfer.payout_failed' ? { error: event.error, message: event.message } : null),
      reason: () => 'dfi_error',
    }),
  },
}).createMachine({
  id: 'transfer',
  context: ({ input }) => ({
    workflowType: input.workflowType,
    waitFor: input.waitFor,
    activityCount: 1,
    endAt: input.waitFor === 'none' ? input.at : null,
    reason: null,
    sentCount: input.waitFor === 'invite' ? 1 : 0,
    paycodeExpiresAt: input.paycodeExpiresAt ?? null,
    holdingUntil: input.holdingUntil ?? null,
    dfiError: null,
    dfiResult: null,
    reminderCount: 0,
    billConfirmedAt: null,
  }),
  initial: 'start',
  states: {
    start: {
      always: [
        { guard: 'waitsForInvite', target: 'invite' },
        { guard: 'waitsForPaycode', target: 'paycode' },
        { guard: 'waitsForHold', target: 'holding' },
        { guard: 'waitsForPayout', target: 'payout' },
        { guard: 'waitsForTrade', target: 'trade' },
        { guard: 'waitsForBill', target: 'bill' },
        { target: 'completed' },
      ],
    },
    invite: {
      on: {
        'transfer.invite_accept': { target: 'completed', actions: 'end' },
        'transfer.invite_refuse': { target: 'canceled', actions: ['recordRefusal', 'end'] },
        'transfer.invite_expire': { target: 'canceled', actions: ['recordExpiry', 'end'] },
        'transfer.invite_resend': { actions: ['recordSent', 'count'] },
        'transfer.retract': { target: 'canceled', actions: ['recordReason', 'end'] },
      },
    },
    paycode: {
      on: {
        'transfer.paycode_receive': { target: 'completed', actions: 'end' },
        'transfer.skip': { target: 'completed', actions: 'end' },
        'transfer.paycode_extend': { actions: ['recordPaycodeExpiry', 'count'] },
        'transfer.paycode_expire': { target: 'canceled', actions: ['recordExpiry', 'end'] },
        'transfer.retract': { target: 'canceled', actions: ['recordReason', 'end'] },
      },
    },
    holding: {
      on: {
        'transfer.hold_end': { target: 'payout', actions: 'count' },
        'transfer.skip': { target: 'payout', actions: 'count' },
        'transfer.retract': { target: 'canceled', actions: ['recordReason', 'end'] },
      },
    },
    trade: {
      on: {
        'transfer.trade_accept': { target: 'completed', actions: 'end' },
        'transfer.trade_expire': { target: 'canceled', actions: ['recordExpiry', 'end'] },
        'transfer.retract': { target: 'canceled', actions: ['recordReason', 'end'] },
      },
    },
    bill: {
      on: {
        'transfer.bill_pay': { target: 'completed', actions: 'end' },
        'transfer.bill_confirm': { actions: ['recordBillConfirmed', 'count'] },
        'transfer.bill_remind': { actions: ['recordReminder', 'count'] },
        'transfer.bill_expire': { target: 'canceled', actions: ['recordExpiry', 'end'] },
        'transfer.retract': { target: 'canceled', actions: ['recordReason', 'end'] },
      },
    },
    payout: {
      on: {
        'transfer.payout_succeeded': { target: 'completed', actions: ['recordDfiResult', 'end'] },
        'transfer.payout_failed': { target: 'canceled', actions: ['recordDfiError', 'end'] },
      },
    },
    completed: {
      on: {
        'transfer.paycode_correct': { actions: 'count' },
      },
    },
    canceled: {},
  },
});

/**
 * A transfer born final (it waited for nothing) keeps no actor row: its transfers row is its
 * persisted final state (issue 36), restored by restoreBornFinal when a command loads it. A transfer
 * that waits keeps its row, also once it has ended.
 */
export const transfer = defineActorKind('transfer', transferMachine, { keepsRow: (snapshot) => snapshot.context.waitFor !== 'none' });

/** The snapshot of a transfer born final, from its row (it was never changed by an event: nothing it takes changes it). */
export function bornFinalSnapshot(row: { workflowType: string; completed: boolean; activityCount: number; endAt: string | null; reason: string | null }) {
  const context: TransferContext = {
    workflowType: row.workflowType, waitFor: 'none', activityCount: row.activityCount, endAt: row.endAt, reason: row.reason, sentCount: 0,
    paycodeExpiresAt: null, holdingUntil: null, dfiError: null, dfiResult: null, reminderCount: 0, billConfirmedAt: null,
  };
  return { value: row.completed ? 'completed' : 'canceled', context, status: 'active' };
}

export type TransferStateName = 'start' | 'invite' | 'paycode' | 'holding' | 'payout' | 'trade' | 'bill' | 'completed' | 'canceled';

const nextActivities: Record<TransferStateName, string> = {
  start: 'start',
  invite: 'invite.wait',
  paycode: 'paycode.wait',
  holding: 'hold',
  payout: 'send_to_dfi',
  trade: 'trade.wait',
  bill: 'bill.wait',
  completed: 'completed',
  canceled: 'canceled',
};

/** What a transfer's row takes from its actor's snapshot: the state it shows, when it ended, the activities it counted. */
interface RowState {
  state: { nextActivity: string; completed: boolean; canceled: boolean; runState: string };
  endAt: Date | null;
  activityCount: number;
}

/** The one way a transfer's snapshot becomes its row's state fields (a new row, and every change). */
export function rowState(snapshot: { value: unknown; context: { endAt: string | null; activityCount: number } }): RowState {
  const { endAt, activityCount } = snapshot.context;
  return { state: stateFields(snapshot.value as TransferStateName), endAt: endAt ? new Date(endAt) : null, activityCount };
}

/** The state fields a transfer shows (supplement 3.1 and 2.10). */
export function stateFields(state: TransferStateName): { nextActivity: string; completed: boolean; canceled: boolean; runState: string } {
  const runState = state === 'completed' || state === 'canceled' ? 'ended' : state === 'payout' ? 'running' : 'paused';
  return { nextActivity: nextActivities[state], completed: state === 'completed', canceled: state === 'canceled', runState };
}
