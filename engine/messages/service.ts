// Email and SMS leave through the outbox (effects message.email and message.sms) and are handed
// to a transport: SMTP (SMTP_URL) or the development sink for email, an HTTP webhook
// (SMS_WEBHOOK_URL) or the development sink for SMS. A transport that throws is retried by the
// outbox with backoff. The development sink writes each message to DATA_DIR/messages/ and logs
// only that it did, never the body.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { assertOutsideCommand, type Unit } from '../actors/command.ts';
import type { Core } from '../core.ts';
import { randomHex } from '../ids.ts';
import { smsWebhookTimeoutMs } from '../limits.ts';
import { eraseDeliveredBody } from './store.ts';

export type Channel = 'email' | 'sms';

export interface OutgoingMessage {
  channel: Channel;
  /** An email address or an E.164 phone number. */
  to: string;
  template: string;
  subject: string;
  text: string;
}

export type Transport = (message: OutgoingMessage, context: { outboxId: bigint }) => Promise<void>;

export interface MessagesService {
  /** Queues a message in the command's transaction; it is sent after commit. */
  queue(unit: Unit, message: OutgoingMessage): void;
  /** Replaces a transport (tests, other providers). */
  setTransport(channel: Channel, transport: Transport): void;
}

export function messageEffectKind(channel: Channel): string {
  return channel === 'email' ? 'message.email' : 'message.sms';
}

function maskAddress(to: string): string {
  const at = to.indexOf('@');
  if (at > 0) return `${to[0]}***${to.slice(at)}`;
  return to.length > 4 ? `***${to.slice(-4)}` : '***';
}

export function developmentSink(core: Core, channel: Channel): Transport {
  const directory = path.join(core.config.dataDir, 'messages');
  return async (message, context) => {
    await mkdir(directory, { recursive: true });
    const stamp = core.clock.now().toISOString().replace(/[:.]/g, '-');
    const file = path.join(directory, `${stamp}-${context.outboxId}-${randomHex(3)}.${channel}.txt`);
    const content = `To: ${message.to}\nChannel: ${channel}\nTemplate: ${message.template}\nSubject: ${message.subject}\n\n${message.text}\n`;
    await writeFile(file, content, { mode: 0o600 });
    core.logger.info('message written to the development sink', { channel, template: message.template, to: maskAddress(message.to), file });
  };
}

export function smtpTransport(core: Core, smtpUrl: string): Transport {
  // nodemailer loads at the first email: a start-up without SMTP (every sandbox) does not pay for it.
  let transporter: Promise<ReturnType<typeof import('nodemailer').createTransport>> | null = null;
  return async (message) => {
    transporter ??= import('nodemailer').then((module) => module.default.createTransport(smtpUrl));
    await (await transporter).sendMail({ from: core.config.smtpFrom, to: message.to, subject: message.subject, text: message.text });
    core.logger.info('email sent by SMTP', { template: message.template, to: maskAddress(message.to) });
  };
}

export function smsWebhookTransport(core: Core, webhookUrl: string): Transport {
  return async (message) => {
    const response = await fetch(webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: message.to, text: message.text, template: message.template }),
      signal: AbortSignal.timeout(smsWebhookTimeoutMs),
    });
    if (!response.ok) throw new Error(`SMS webhook answered ${response.status}`);
    core.logger.info('SMS handed to the webhook', { template: message.template, to: maskAddress(message.to) });
  };
}

export function createMessagesService(core: Core): MessagesService {
  const transports: Record<Channel, Transport> = {
    email: core.config.smtpUrl ? smtpTransport(core, core.config.smtpUrl) : developmentSink(core, 'email'),
    sms: core.config.smsWebhookUrl ? smsWebhookTransport(core, core.config.smsWebhookUrl) : developmentSink(core, 'sms'),
  };
  for (const channel of ['email', 'sms'] as const) {
    core.outbox.register(messageEffectKind(channel), async (payload: OutgoingMessage, context) => {
      if (payload.text === '[erased after delivery]') return;
      assertOutsideCommand('sending a message');
      await transports[channel](payload, context);
      await eraseDeliveredBody(core.sql, context.outboxId);
      core.database.forgetErased?.('outbox');
    });
  }
  return {
    queue(unit, message) {
      unit.emit(messageEffectKind(message.channel), message);
    },
    setTransport(channel, transport) {
      transports[channel] = transport;
    },
  };
}
