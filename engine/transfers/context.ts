// What the transfers operations share, built once by createTransfersService: the core, the
// domains a transfer calls on, the payment code secrets and the hooks other domains register.
import type { Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import type { Failure } from '../ledger/errors.ts';
import type { InvitationsService } from '../invitations/service.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TransferEvent } from './machine.ts';
import { createPaycodeSecrets, type PaycodeSecrets } from './paycode-secrets.ts';
import type { TransferRow } from './store.ts';

export type TransferResult = { ok: true; transferId: string } | Failure;
export type TransferTimerHandler = (unit: Unit, transferId: string, event: TransferEvent) => Promise<void>;
export type TransferAcceptHandler = (callerId: string, row: TransferRow, closedLoopOnly: boolean) => Promise<TransferResult>;

export interface TransfersContext {
  core: Core;
  profiles: ProfilesService;
  /** Absent where no invitations domain runs: invitation sends then go out without a message. */
  invitations: InvitationsService | undefined;
  paycodeSecrets: PaycodeSecrets;
  /** Transfer timers another domain delivers (bills: bill_expire, bill_remind), by timer name. */
  timerHandlers: Map<string, TransferTimerHandler>;
  /** POST /t/<id>/accept for another domain's workflows (bills: payment), by workflow type. */
  acceptHandlers: Map<string, TransferAcceptHandler>;
}

export function createTransfersContext(core: Core, profiles: ProfilesService, invitations: InvitationsService | undefined): TransfersContext {
  return { core, profiles, invitations, paycodeSecrets: createPaycodeSecrets(core), timerHandlers: new Map(), acceptHandlers: new Map() };
}
