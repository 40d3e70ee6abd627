// The terminal's HTTP client: the one typed client the CLI uses too (cli/api/client.ts, openapi-fetch
// over types generated from the server's own /openapi.json; `npm run client:generate`). Every
// failure becomes one clear line (PosError); nothing here throws anything else at the screen.
import { cashloopClient } from '../cli/api/client.ts';

export class PosError extends Error {}

export interface Loop {
  loop_id: string;
  currency: string;
  title: string;
  amount: string;
}

export interface Transfer {
  id: string;
  amount: string;
  currency: string;
  workflow_type: string;
}

export interface ReportRow {
  settlement_type: string;
  received_currency: string;
  received_amount: string;
  settle_funded: string;
  settle_pending: string;
  settle_settled: string;
  pos_device_id: string | null;
  transfer_id: string;
}

/** One line from an error answer: the first send error's code, the invalid fields, or the description. */
export function errorLine(status: number, body: unknown): string {
  const answer = (body ?? {}) as { error?: string; error_description?: string; invalid?: Record<string, string>; send_errors?: { code: string; info?: Record<string, unknown> }[] };
  if (answer.send_errors?.length) {
    const first = answer.send_errors[0];
    const names: Record<string, string> = {
      insufficient_funds: 'not enough brand cash in the customer wallet', cash_not_accepted: 'this shop does not redeem that cash',
      open_loop_not_permitted: 'only brand cash can be taken here', mixed_acceptance: 'pick cash of one kind at a time',
    };
    return names[first.code] ?? first.code.replace(/_/g, ' ');
  }
  if (answer.invalid) return Object.entries(answer.invalid).map(([field, message]) => `${field} ${message}`).join('; ');
  if (answer.error_description) return answer.error_description;
  return `the server answered ${status}${answer.error ? ` (${answer.error})` : ''}`;
}

async function must<T>(session: Session, call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: unknown; error?: unknown; response: Response };
  try {
    result = await call;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    throw new PosError(`cannot reach the server at ${session.baseUrl} (${cause?.code ?? (error as Error).message}): is it running? Else --url or CASHLOOP_URL`);
  }
  if (!result.response.ok) throw new PosError(errorLine(result.response.status, result.error));
  return (typeof result.data === 'string' ? result.data : displaySafe(result.data)) as T;
}

/**
 * Text from outside (the server's titles, names and messages) as the screen may show it: control
 * characters become spaces. A carriage return inside a business title sent the terminal back to
 * the first column mid-line, and the rest of the line overwrote it; a tab jumped past the width
 * ink had measured.
 */
export function screenText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** A JSON answer with its strings made screenText: titles and names go on the screen as they are. */
function displaySafe(value: unknown): unknown {
  if (typeof value === 'string') return screenText(value);
  if (Array.isArray(value)) return value.map(displaySafe);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, displaySafe(entry)]));
  return value;
}

export type PosClient = ReturnType<typeof createPosClient>;

type ApiClient = ReturnType<typeof cashloopClient>;

/** The terminal's bearer token: it changes at sign-in and when a business is selected. */
interface Session {
  token: string | null;
  /** Named in "cannot reach the server". */
  baseUrl: string;
}

function bearer(session: Session): { authorization: string } {
  return { authorization: `Bearer ${session.token ?? ''}` };
}

export interface ReportFilters {
  startDate?: string;
  endDate?: string;
  posDevice?: string;
}

/** The end-of-day report's filters as the API names them. */
function reportBody(filters: ReportFilters): Record<string, string> {
  const body: Record<string, string> = {};
  if (filters.startDate) body.start_date = filters.startDate;
  if (filters.endDate) body.end_date = filters.endDate;
  if (filters.posDevice) body.pos_device = filters.posDevice;
  return body;
}

/** Signing in (password, then a code), choosing the business, and who the terminal acts for. */
function signInCalls(client: ApiClient, session: Session) {
  return {
    async signIn(input: { clientId: string; login: string; password: string; deviceUuid: string }) {
      const started = await must<{ attempt_path: string; secret: string; factor_id?: string; completed_mfa: boolean; token?: { access_token: string }; revealed_codes?: string[] }>(session,
client.POST('/aa/signin', {
          body: {
            client_id: input.clientId, login: input.login, password: input.password, device_uuid: input.deviceUuid,
            permissions: ['pull_payment', 'receive_cash', 'view_history', 'view_wallet', 'select_profile'],
          } as never,
        }),
      );
      if (started.completed_mfa && started.token) session.token = started.token.access_token;
      return started;
    },

    async enterCode(attempt: { attempt_path: string; secret: string; factor_id: string }, code: string) {
      const attemptId = attempt.attempt_path.split('/').filter(Boolean)[1];
      const answer = await must<{ completed_mfa: boolean; token?: { access_token: string }; factor_id?: string }>(session,
client.POST('/aa/{attemptId}/auth-uid', {
          params: { path: { attemptId } } as never, body: { factor_id: attempt.factor_id, code } as never, headers: { authorization: `service secret="${attempt.secret}"` },
        } as never),
      );
      if (answer.token) session.token = answer.token.access_token;
      return answer;
    },

    async selectProfile(profileId: string) {
      const answer = await must<{ access_token: string }>(session, client.GET('/token/select/{profileId}', { params: { path: { profileId } }, headers: bearer(session) } as never));
      session.token = answer.access_token;
    },

    async me() {
      const answer = await must<{ profile: { id: string; title: string } }>(session, client.GET('/wallet/info', { headers: bearer(session) } as never));
      return answer.profile;
    },
  };
}

/** A sale: by pull, by payment code, or by a processor's token. */
function paymentCalls(client: ApiClient, session: Session) {
  return {
    async redeemable(senderUid: string) {
      return must<{ loops: Loop[]; sender_info: { title: string } }>(session, client.GET('/pull/redeemable', { params: { query: { sender_uid: senderUid } }, headers: bearer(session) } as never));
    },

    async pull(input: { senderUid: string; amounts?: string; nonServiceAmount?: string; currency: string; dedupId: string }) {
      const body: Record<string, string> = { sender_uid: input.senderUid, non_service_currency: input.currency, dedup_id: input.dedupId };
      if (input.amounts) body.amounts = input.amounts;
      if (input.nonServiceAmount) body.non_service_amount = input.nonServiceAmount;
      return (await must<{ transfer: Transfer }>(session, client.POST('/pull/redeem', { body: body as never, headers: bearer(session) }))).transfer;
    },

    async receive(input: { paycode: string; amount: string; currency: string; totalDue?: string; totalTax?: string }) {
      const body: Record<string, string> = { paycode: input.paycode, amount: input.amount, currency: input.currency };
      if (input.totalDue) body.total_due = input.totalDue;
      if (input.totalTax) body.total_tax = input.totalTax;
      return must<Record<string, unknown>>(session, client.POST('/wallet/receive', { body: body as never, headers: bearer(session) }));
    },

    async sendable(processorToken: string, senderId: string, recipientId: string) {
      return must<{ loops: (Loop & { missing_agreement: boolean })[] }>(session,
        client.GET('/proc/sendable', { params: { query: { sender_id: senderId, recipient_id: recipientId } }, headers: { authorization: `Bearer ${processorToken}` } } as never),
      );
    },

    async procSend(processorToken: string, input: { senderId: string; recipientId: string; amounts?: string; nonServiceAmount?: string; currency: string; dedupId: string }) {
      const body: Record<string, string> = { sender_id: input.senderId, recipient_id: input.recipientId, non_service_currency: input.currency, dedup_id: input.dedupId };
      if (input.amounts) body.amounts = input.amounts;
      if (input.nonServiceAmount) body.non_service_amount = input.nonServiceAmount;
      return (await must<{ transfer: Transfer }>(session, client.POST('/proc/send', { body: body as never, headers: { authorization: `Bearer ${processorToken}` } }))).transfer;
    },
  };
}

function reportCalls(client: ApiClient, session: Session) {
  return {
  async report(filters: ReportFilters) {
    return must<{ report: ReportRow[] }>(session, client.POST('/wallet/report/receivable', { body: reportBody(filters) as never, headers: bearer(session) }));
  },

  async reportCsv(filters: ReportFilters): Promise<string> {
    return must<string>(session, client.POST('/wallet/report/receivable', { body: { ...reportBody(filters), csv: true } as never, headers: bearer(session), parseAs: 'text' }));
  },
  };
}

export function createPosClient(baseUrl: string, initialToken: string | null = null) {
  // No fixed bearer: the terminal's token changes at sign-in, and processor calls use another.
  const client = cashloopClient({ baseUrl });
  const session: Session = { token: initialToken, baseUrl };
  return {
    /** The API's base URL (the receive feed connects beside it, receive-feed.tsx). */
    baseUrl,
    get token() {
      return session.token;
    },
    setToken(value: string) {
      session.token = value;
    },
    ...signInCalls(client, session),
    ...paymentCalls(client, session),
    ...reportCalls(client, session),
  };
}

/** Minor units of a 2-decimal amount string ("12.5" -> 1250n); null when not an amount. */
export function toMinor(text: string): bigint | null {
  const match = /^(\d{1,12})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return null;
  return BigInt(match[1]) * 100n + BigInt((match[2] ?? '').padEnd(2, '0') || '0');
}

export function fromMinor(minor: bigint): string {
  const digits = minor.toString().padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** A customer as typed at the till: a profile id, a UID, or code text that carries one. */
export function customerUid(text: string): string | null {
  const trimmed = text.trim();
  if (/^\d{10}$/.test(trimmed)) return `service:${trimmed}`;
  const fromCode = /recipient_uid=([^&\s]+)|^(?:cashloop:)?(service:\d{10})$/.exec(trimmed);
  if (fromCode) return decodeURIComponent(fromCode[1] ?? fromCode[2]);
  if (/^(service|username|email|phone):\S+$/.test(trimmed)) return trimmed;
  return null;
}
