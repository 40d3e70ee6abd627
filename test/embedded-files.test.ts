// The embedded database keeps its files to its owner (directories 0700, files 0600, under umask
// 0022, the ones initdb made and the ones made later), and a sign-up code's message, once delivered
// and erased from the outbox, soon leaves its WAL and its old row versions are vacuumed. Embedded
// whatever the run's backend: a Postgres server's files are its operator's (docs/reliability.md).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../engine/config.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { createLogger } from '../engine/logger.ts';
import type { OutgoingMessage } from '../engine/messages/service.ts';
import { openPglite } from '../engine/storage/database.ts';
import { seedPgliteDataDir, testScratchRoot } from './support/templates.ts';

const made: string[] = [];
test.after(() => {
  for (const directory of made) rmSync(directory, { recursive: true, force: true });
});

function scratch(): string {
  const directory = mkdtempSync(path.join(testScratchRoot(), 'cashloop-embedded-'));
  made.push(directory);
  return directory;
}

/** Every path under `directory` that others may read, write or enter, with its mode. */
function openToOthers(directory: string): string[] {
  const found: string[] = [];
  const visit = (current: string) => {
    const mode = statSync(current).mode & 0o777;
    if (mode & 0o077) found.push(`${current.slice(directory.length) || '/'} ${mode.toString(8)}`);
    if (statSync(current).isDirectory()) for (const name of readdirSync(current)) visit(path.join(current, name));
  };
  visit(directory);
  return found;
}

/** The files under `directory` holding `text`. */
function filesHolding(directory: string, text: string): string[] {
  const needle = Buffer.from(text);
  const found: string[] = [];
  const visit = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const child = path.join(current, entry.name);
      if (entry.isDirectory()) visit(child);
      else if (entry.isFile() && readFileSync(child).includes(needle)) found.push(child.slice(directory.length));
    }
  };
  visit(directory);
  return found;
}

test('a new embedded database under umask 0022: every directory 0700 and file 0600, also those made later', async () => {
  const umask = process.umask(0o022);
  const dataDir = scratch();
  const database = await openPglite(dataDir);
  try {
    const location = path.join(dataDir, 'pglite');
    assert.equal(openToOthers(location), []);
    await database.sql`create table later (id int primary key, note text)`;
    await database.sql`insert into later values (1, 'made after opening')`;
    await database.sql.unsafe('checkpoint').simple();
    assert.equal(openToOthers(location), []);
  } finally {
    await database.close();
    process.umask(umask);
  }
});

test('a delivered sign-up code is erased from the outbox and then from every file of the embedded database', async () => {
  const dataDir = scratch();
  await seedPgliteDataDir(dataDir);
  const database = await openPglite(dataDir, undefined, { erasedScrubDelayMs: 50 });
  const config = loadConfig({ DATA_DIR: dataDir, CASHLOOP_MODE: 'sandbox', LOG_LEVEL: 'error', CASHLOOP_PASSWORD_HASH_COST: 'test', CASHLOOP_COMMAND_SCOPE_CHECKS: '1' });
  const engine: Engine = await createEngine({ config, database, logger: createLogger('error', { silent: true }) });
  try {
    const code = `${Date.now() % 1000}-${process.pid % 1000}-${Math.floor(Math.random() * 900 + 100)}`;
    const message: OutgoingMessage = { channel: 'sms', to: '+15555550123', template: 'authn-signup', subject: 'Your code', text: `Your Cashloop code is ${code}.` };
    const delivered: string[] = [];
    engine.services.messages.setTransport('sms', async (outgoing) => void delivered.push(outgoing.text));
    await engine.commands.run('test.message', [], async (unit) => engine.services.messages.queue(unit, message));
    await engine.outbox.drain();
    assert.equal(delivered, [message.text]);
    const [row] = await engine.sql<{ payload: { text: string } }[]>`select payload from outbox where kind = 'message.sms'`;
    assert.is(row.payload.text, '[erased after delivery]');

    // Soon no WAL segment holds the code (nor any other file but the outbox table's own: its erased
    // versions are vacuumed away, but Postgres does not zero a page's free space, so their bytes may
    // stay there until the page is rewritten; docs/reliability.md).
    const location = path.join(dataDir, 'pglite');
    const [outbox] = await engine.sql<{ file: string }[]>`select pg_relation_filepath('outbox') as file`;
    const lingering = () => filesHolding(location, code).filter((file) => file !== `/${outbox.file}`);
    const deadline = Date.now() + 15_000;
    while (lingering().length > 0) {
      assert.ok(Date.now() < deadline, `the erased code is still in ${lingering().join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The outbox was vacuumed after the erasure (its rows still change meanwhile: the feed relay and
    // pruning run, so a count of dead versions would not stay at zero).
    const [vacuumed] = await engine.sql<{ vacuums: bigint }[]>`select vacuum_count + autovacuum_count as vacuums from pg_stat_user_tables where relname = 'outbox'`;
    assert.ok(vacuumed.vacuums >= 1n, 'the erased versions were vacuumed');
  } finally {
    await engine.close();
  }
});

test.run();
