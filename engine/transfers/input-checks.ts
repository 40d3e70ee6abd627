// Checks of a send's input that need no lock and no read, shared by sends, trades, POS, offers,
// payouts and the API routes.
import { openLoopId, type AmountEntry } from '../ledger/allocation.ts';
import { sendFailure, type Failure } from '../ledger/errors.ts';

/** Total characters of appdata names and values. */
export function appdataChars(appdata: Record<string, string>): number {
  return Object.entries(appdata).reduce((total, [name, value]) => total + name.length + value.length, 0);
}

/** A closed-loop token names open loop cash: refused before anything is read or locked. */
export function closedLoopRefusal(entries: readonly AmountEntry[], closedLoopOnly: boolean): Failure | null {
  if (!closedLoopOnly || !entries.some((entry) => entry.loopId === openLoopId)) return null;
  return sendFailure([{ code: 'open_loop_not_permitted', field_name: 'amounts', info: { loop_id: openLoopId, reason: 'this token may move brand cash only' } }]);
}
