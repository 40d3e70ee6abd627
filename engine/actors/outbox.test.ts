// Proves the outbox is bounded: delivered rows are pruned at their retention, webhook deliveries and
// failed rows at theirs, pending rows never; and feed receipts nobody subscribes to do not stay pending.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { outboxDeliveredRetentionMs, outboxRecordRetentionMs } from '../limits.ts';
import { createTestEngine, type TestEngine } from '../../test/support/harness.ts';
import { designateIssuer, fund, individual } from '../../test/ledger-support.ts';
import { parseAmounts } from '../ledger/allocation.ts';

let harness: TestEngine;

test.before(async () => {
  harness = await createTestEngine();
  await designateIssuer(harness.engine);
});
test.after(async () => harness.close());

async function kinds(): Promise<string[]> {
  const rows = await harness.engine.sql<{ kind: string }[]>`select kind from outbox where kind like 'prune.%' order by kind`;
  return rows.map((row) => row.kind);
}

test('delivered rows go at outboxDeliveredRetentionMs, webhook deliveries and failed rows at outboxRecordRetentionMs, pending rows stay', async () => {
  const { sql, outbox } = harness.engine;
  const at = harness.clock.now();
  await sql`
    insert into outbox (kind, payload, created_at, next_attempt_at, delivered_at, failed_at) values
      ('prune.delivered', '{}', ${at}, ${at}, ${at}, null),
      ('prune.failed', '{}', ${at}, ${at}, null, ${at}),
      ('prune.pending', '{}', ${at}, ${new Date(at.getTime() + 10 * outboxRecordRetentionMs)}, null, null),
      ('webhook.deliver', '{"webhook_id": "prune.webhook"}', ${at}, ${at}, ${at}, null)`;
  const webhookRows = async () => (await sql<{ count: number }[]>`select count(*)::int as count from outbox where payload ->> 'webhook_id' = 'prune.webhook'`)[0].count;
  harness.clock.advance(outboxDeliveredRetentionMs - 1);
  await outbox.prune();
  assert.equal(await kinds(), ['prune.delivered', 'prune.failed', 'prune.pending'], 'nothing before its retention');
  harness.clock.advance(2);
  await outbox.prune();
  assert.equal(await kinds(), ['prune.failed', 'prune.pending']);
  assert.is(await webhookRows(), 1, 'a webhook delivery stays listed');
  harness.clock.advance(outboxRecordRetentionMs);
  await outbox.prune();
  assert.equal(await kinds(), ['prune.pending'], 'a row that waits for its retry is never pruned');
  assert.is(await webhookRows(), 0);
});

test('a receipt nobody subscribes to is claimed and marked delivered, not left pending', async () => {
  const { ledger } = harness.engine.services;
  const [payer, shop] = [await individual(harness.engine), await individual(harness.engine)];
  await fund(harness.engine, payer, '1.00');
  const sent = await ledger.transfers.send({ private: true, nonPayment: false, requireRecipientEmail: false, appdata: {}, senderPersonalId: null, senderId: payer, recipientUid: `service:${shop}`, amounts: parseAmounts('0-USD-0.10') });
  assert.ok(sent.ok);
  assert.is(harness.engine.services.feed.subscriptions(), 0);
  const pending = async () => (await harness.engine.sql<{ count: number }[]>`
    select count(*)::int as count from outbox where kind = 'feed.receipt' and delivered_at is null and payload ->> 'profile_id' = ${shop}`)[0].count;
  const deadline = Date.now() + 10_000;
  while ((await pending()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(await pending(), 0, 'the idle relay claimed it (feedIdleRelayIntervalMs)');
});

test.run();
