// Proves messages leave through the outbox: the development sink writes files and logs no code,
// the SMS webhook receives JSON, a failing transport is retried with backoff and nothing is lost,
// and a delivered message's body is erased from the outbox row.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import winston from 'winston';
import { createTestEngine, listen, type TestEngine } from '../../test/support/harness.ts';
import { createLogger } from '../logger.ts';
import { developmentSink, smsWebhookTransport, type OutgoingMessage } from './service.ts';

let harness: TestEngine;
test.before(async () => {
  harness = await createTestEngine();
});
test.after(async () => harness.close());

const message: OutgoingMessage = { channel: 'email', to: 'pat@example.com', template: 'authn-signup-nonexistent', subject: 'Your code', text: 'Your code is 123-456-789.' };

test('the development sink writes the message to a file and logs no code', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-sink-'));
  const lines: string[] = [];
  const logger = createLogger('info');
  logger.clear();
  logger.add(new winston.transports.Stream({ stream: new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } }) }));
  const core = { ...harness.engine, logger, config: { ...harness.engine.config, dataDir } };
  await developmentSink(core, 'email')(message, { outboxId: 7n });
  const files = readdirSync(path.join(dataDir, 'messages'));
  assert.is(files.length, 1);
  assert.ok(readFileSync(path.join(dataDir, 'messages', files[0]), 'utf8').includes('123-456-789'));
  assert.is(lines.length, 1);
  assert.not.ok(lines[0].includes('123'));
  assert.not.ok(lines[0].includes('pat@example.com'));
  rmSync(dataDir, { recursive: true, force: true });
});

test('the SMS webhook transport posts JSON and throws on a non-2xx answer', async () => {
  const received: unknown[] = [];
  let status = 200;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push(JSON.parse(body));
      response.writeHead(status).end();
    });
  });
  const url = await listen(server);
  const transport = smsWebhookTransport(harness.engine, `${url}/sms`);
  await transport({ ...message, channel: 'sms', to: '+15555550100' }, { outboxId: 1n });
  assert.equal(received[0], { to: '+15555550100', text: message.text, template: message.template });
  status = 503;
  try {
    await transport({ ...message, channel: 'sms', to: '+15555550100' }, { outboxId: 2n });
    assert.unreachable('a 503 must throw');
  } catch (error) {
    assert.match(String(error), /503/);
  }
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test('a failed delivery is retried with backoff, then the body is erased from the outbox', async () => {
  const { engine, clock } = harness;
  const delivered: string[] = [];
  let failuresLeft = 2;
  engine.services.messages.setTransport('email', async (outgoing) => {
    if (failuresLeft-- > 0) throw new Error('SMTP is down');
    delivered.push(outgoing.text);
  });
  await engine.commands.run('test.message', [], async (unit) => engine.services.messages.queue(unit, message));
  await engine.outbox.drain();
  assert.equal(delivered, []);
  clock.advance(1_000);
  await engine.outbox.drain();
  clock.advance(2_000);
  await engine.outbox.drain();
  assert.equal(delivered, [message.text]);
  const rows = await engine.sql<{ payload: { text: string }; delivered_at: Date | null; attempts: number }[]>`select payload, delivered_at, attempts from outbox where kind = 'message.email'`;
  assert.is(rows.length, 1);
  assert.ok(rows[0].delivered_at);
  assert.is(rows[0].attempts, 3);
  assert.is(rows[0].payload.text, '[erased after delivery]');
});

test.run();
