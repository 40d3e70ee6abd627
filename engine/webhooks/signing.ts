// Webhook signatures: `Cashloop-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each v1 an
// HMAC-SHA256 under one live secret of `<t>.<body>`. Two v1 values while a rotation overlaps. A
// receiver recomputes with its secret, compares in constant time and refuses old timestamps.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../ids.ts';
import { webhookToleranceSeconds } from '../limits.ts';

export const signatureHeader = 'cashloop-signature';
export const deliveryHeader = 'cashloop-delivery';

function mac(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The signature header's value for a body sent at `at`, signed by every given secret. */
export function sign(body: string, secrets: readonly string[], at: Date): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${mac(secret, timestamp, body)}`)].join(',');
}

export type VerifyOutcome = { ok: true; timestamp: number } | { ok: false; reason: 'malformed' | 'mismatch' | 'too_old' | 'in_future' };

/** What a receiver does: parse the header, check one v1 matches under `secret`, refuse replays. */
export function verify(header: string | undefined, body: string, secret: string, now: Date, toleranceSeconds = webhookToleranceSeconds): VerifyOutcome {
  const parts = (header ?? '').split(',').map((part) => part.trim().split('='));
  const timestamps = parts.filter(([key]) => key === 't').map(([, value]) => Number(value));
  const signatures = parts.filter(([key, value]) => key === 'v1' && /^[0-9a-f]{64}$/.test(value ?? '')).map(([, value]) => value);
  if (timestamps.length !== 1 || !Number.isInteger(timestamps[0]) || signatures.length === 0) return { ok: false, reason: 'malformed' };
  const timestamp = timestamps[0];
  const expected = mac(secret, timestamp, body);
  if (!signatures.some((signature) => constantTimeEqual(signature, expected))) return { ok: false, reason: 'mismatch' };
  const age = Math.floor(now.getTime() / 1000) - timestamp;
  if (age > toleranceSeconds) return { ok: false, reason: 'too_old' };
  if (age < -toleranceSeconds) return { ok: false, reason: 'in_future' };
  return { ok: true, timestamp };
}
