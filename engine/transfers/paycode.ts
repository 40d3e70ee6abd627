// Payment codes of a waiting transfer: minting a free code when the send starts, matching a given
// code against a stored one, and the sender extending a code's expiry.
import type { Unit } from '../actors/command.ts';
import { constantTimeEqual, randomDigits } from '../ids.ts';
import { failure, type Failure } from '../ledger/errors.ts';
import { paycodeDigits, paycodeExpiryMsMax, paycodeGenerateTriesMax } from '../limits.ts';
import { applyIn, loadIn, sentByCaller } from './changes.ts';
import type { TransferResult, TransfersContext } from './context.ts';
import { transfer } from './machine.ts';
import { normalizePaycode } from './paycode-secrets.ts';
import * as store from './store.ts';
import type { Money } from '../money.ts';

/** Whether a stored code is the given one: by digest, or in clear for rows older than migration 0501. */
export function paycodeMatches(row: store.PaycodeRow, digest: string, code: string): boolean {
  return row.code_digest !== null ? constantTimeEqual(row.code_digest, digest) : row.code !== '' && constantTimeEqual(row.code, code);
}

/** Gives the transfer a free payment code; returns the code. */
export async function newPaycode(
  ctx: TransfersContext, unit: Unit, row: { transferId: string; senderId: string; recipientId: string; money: Money; expiresAt: Date },
): Promise<string> {
  for (let tries = 0; tries < paycodeGenerateTriesMax; tries++) {
    const code = randomDigits(paycodeDigits);
    const codeDigest = await ctx.paycodeSecrets.digest(unit.tx, code);
    const codeSealed = await ctx.paycodeSecrets.seal(unit.tx, code);
    if (await store.insertPaycode(unit.tx, { codeDigest, codeSealed, ...row }, unit.now)) return code;
  }
  throw new Error('could not find a free payment code');
}

export async function changePaycodeExpiration(
  ctx: TransfersContext, input: { callerId: string; transferId: string; paycode: string; expireSeconds: number },
): Promise<TransferResult> {
  const { sql, commands } = ctx.core;
  const sent = await sentByCaller(sql, input.callerId, input.transferId);
  if (!sent.ok) return sent;
  const { row } = sent;
  if (input.expireSeconds * 1000 > paycodeExpiryMsMax) return failure('invalid_amount', 'expire_seconds is more than 10 years');
  return commands.run('transfer.paycode_extend', [{ kind: 'transfer', id: row.id }], async (unit: Unit<Failure>) => {
    const { state } = await loadIn(unit, row.id);
    const paycode = await store.selectPaycodeByTransfer(unit.tx, row.id);
    if (state !== 'paycode' || !paycode || paycode.state !== 'active') return unit.reject(failure('not_waiting'));
    const given = normalizePaycode(input.paycode);
    if (!paycodeMatches(paycode, await ctx.paycodeSecrets.digest(unit.tx, given), given)) return unit.reject(failure('paycode_mismatch'));
    const expiresAt = new Date(unit.now.getTime() + input.expireSeconds * 1000);
    await store.updatePaycode(unit.tx, row.id, { expiresAt }, unit.now);
    unit.schedule(transfer, row.id, 'paycode_expire', expiresAt, { type: 'transfer.paycode_expire', at: expiresAt.toISOString() });
    await applyIn(unit, row.id, { type: 'transfer.paycode_extend', at: unit.now.toISOString(), expiresAt: expiresAt.toISOString() });
    return { ok: true as const, transferId: row.id };
  });
}
