// Payment codes at rest: a keyed digest to find a code (HMAC-SHA256), and the code sealed
// (AES-256-GCM) so that its sender can see it again on the TransferDetail, as the interface says.
// Both keys are per-installation secrets, created on first use like the invitation-code key.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Core } from '../core.ts';
import type { Queryable } from '../storage/database.ts';
import { installationSecret } from '../storage/installation-store.ts';
import { installationKeyBytes } from '../limits.ts';

export interface PaycodeSecrets {
  /** The lookup digest of a code (spaces and dashes aside). */
  digest(db: Queryable, code: string): Promise<string>;
  seal(db: Queryable, code: string): Promise<string>;
  /** The code of a sealed value; null when it does not open (a value from another installation). */
  open(db: Queryable, sealed: string): Promise<string | null>;
}

export function normalizePaycode(code: string): string {
  return code.replace(/[\s-]/g, '');
}

export function createPaycodeSecrets(core: Core): PaycodeSecrets {
  let digestKey: string | null = null;
  let sealKey: Buffer | null = null;
  /** Inside a command pass its transaction: PGlite serves one connection, so the outer pool would wait. */
  async function keys(db: Queryable): Promise<{ digestKey: string; sealKey: Buffer }> {
    digestKey ??= await installationSecret(db, 'paycode_digest_key', randomBytes(installationKeyBytes).toString('hex'), core.clock.now());
    sealKey ??= Buffer.from(await installationSecret(db, 'paycode_seal_key', randomBytes(installationKeyBytes).toString('hex'), core.clock.now()), 'hex');
    return { digestKey, sealKey };
  }
  return {
    async digest(db, code) {
      return createHmac('sha256', (await keys(db)).digestKey).update(normalizePaycode(code)).digest('hex');
    },
    async seal(db, code) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', (await keys(db)).sealKey, iv);
      const body = Buffer.concat([cipher.update(code, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
    },
    async open(db, sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || !iv || body === undefined || !tag) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', (await keys(db)).sealKey, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}
