// Payment processors: an app holding a processor token (offline and process_payment, granted by the
// sender) sends the sender's brand cash to a recipient that accepts some.
import type { ProfileRecord } from '../profiles/service.ts';
import { redeemedLoopsOf } from '../transfers/service.ts';
import type { PosContext } from './context.ts';
import { invalid, posFailure, type PosFailure } from './errors.ts';
import type { PaymentInput, PaymentResult } from './fields.ts';
import { loopsFor, type LoopsResult } from './loops.ts';
import { pay } from './pay.ts';

export interface ProcessorCaller {
  profileId: string;
  source: string;
  permissions: ReadonlySet<string>;
}

export interface ProcInput extends PaymentInput {
  caller: ProcessorCaller;
  senderId: string;
  recipientId: string;
}

async function processorChecks(ctx: PosContext, caller: ProcessorCaller, senderId: string, recipientId: string): Promise<{ sender: ProfileRecord; recipient: ProfileRecord } | PosFailure> {
  const { sql } = ctx.core;
  if (caller.source !== 'oauth' || !caller.permissions.has('offline') || !caller.permissions.has('process_payment')) {
    return posFailure('processor_token_required', { description: 'A processor token is granted with offline and process_payment through the authorization code grant.' });
  }
  if (!/^\d{10}$/.test(senderId)) return invalid('sender_id', 'must be a profile id');
  if (!/^\d{10}$/.test(recipientId)) return invalid('recipient_id', 'must be a profile id');
  if (senderId !== caller.profileId) return posFailure('processor_not_granted', { description: 'The processor acts only for the sender that granted it this token.' });
  if (senderId === recipientId) return invalid('recipient_id', 'the recipient must differ from the sender');
  const [sender, recipient] = await Promise.all([ctx.profiles.get(sql, senderId), ctx.profiles.get(sql, recipientId)]);
  if (!sender) return posFailure('sender_not_found', { invalid: { sender_id: 'no such profile' } });
  if (!recipient) return invalid('recipient_id', 'no such profile');
  if (!recipient.isIndividual && (await redeemedLoopsOf(sql, recipient)).size === 0 && !(await ownsDesigns(ctx, recipient.id))) {
    return posFailure('recipient_not_accepting', { description: 'The recipient business accepts no brand cash.' });
  }
  return { sender, recipient };
}

async function ownsDesigns(ctx: PosContext, profileId: string): Promise<boolean> {
  const rows = await ctx.core.sql`select 1 from designs where issuer_id = ${profileId} and deleted_at is null limit 1`;
  return rows.length > 0;
}

export async function sendable(ctx: PosContext, input: { caller: ProcessorCaller; senderId: string; recipientId: string; serialNumbers?: string }): Promise<LoopsResult> {
  const checked = await processorChecks(ctx, input.caller, input.senderId, input.recipientId);
  if ('error' in checked) return checked;
  return loopsFor(ctx, checked.sender, checked.recipient, input.serialNumbers, false);
}

export async function procSend(ctx: PosContext, input: ProcInput): Promise<PaymentResult> {
  const checked = await processorChecks(ctx, input.caller, input.senderId, input.recipientId);
  if ('error' in checked) return checked;
  return pay(ctx, 'processor', { sender: checked.sender, recipient: checked.recipient, dedupOwner: input.senderId, personalId: null, posDevice: null, viewerId: input.senderId }, input);
}
