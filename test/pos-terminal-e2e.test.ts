// Proves the real terminal process end to end: `pos-sim/main.tsx` runs in an 80x24 pseudo-terminal
// (node-pty) against a running server, shows its help, takes a sale by pull from a consenting
// customer with keystrokes only (its token from CASHLOOP_TOKEN, never on the screen), prints the
// receipt, and quits cleanly; the ledger moved and the audit balances.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node-pty';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import { addBusiness, addIndividual, userToken } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { startTestServer, type TestServer } from './support/http.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const permissions = [...designPermissions, 'create_design', 'send_cash', 'view_wallet', 'receive_cash', 'view_history', 'pull_payment'];
let server: TestServer;
/** Every terminal this file starts: killed at the end, so a failed step cannot keep the run alive. */
const started: { kill(signal?: string): void }[] = [];

test.before(async () => {
  server = await startTestServer();
});

test.after(async () => {
  for (const child of started) {
    try {
      child.kill();
    } catch {
      // Already gone.
    }
  }
  await server.close();
});

const plain = (text: string) => text.replace(/\u001B\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/\u001B[()][A-Z0-9]/g, '');

function terminal(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'pos-sim/main.tsx', ...args], {
    name: 'xterm-256color', cols: 80, rows: 24, cwd: root, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm-256color', ...env },
  });
  started.push(child);
  let output = '';
  let exitCode: number | null = null;
  child.onData((data) => {
    output += data;
  });
  child.onExit(({ exitCode: code }) => {
    exitCode = code;
  });
  /** Where the output stood at the last keystroke: a screen is waited for in what was drawn since. */
  let mark = 0;
  return {
    child,
    screen: () => plain(output),
    exitCode: () => exitCode,
    /**
     * Waits until the terminal has drawn text since the last keystroke (ink redraws the whole frame,
     * so what is on the screen now is drawn again after each key). A frame on the screen takes keys
     * at once (pos-sim/widgets.tsx KeysRoot): nothing else to wait for. The timeout is a stuck run's limit.
     */
    async waitFor(text: string, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while (!plain(output.slice(mark)).includes(text)) {
        if (Date.now() > deadline) throw new Error(`no "${text}" on the terminal:\n${plain(output).slice(-2000)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    /** Keys as one burst (a paste, a scanner; the form takes each line of it in turn). */
    type(text: string) {
      mark = output.length;
      child.write(text);
    },
    /** Resolves with the exit code. */
    exited: new Promise<number>((resolve) => child.onExit(({ exitCode: code }) => resolve(code))),
  };
}

test('--help lists the options', async () => {
  const run = terminal(['--help']);
  await run.waitFor('--processor-token');
  assert.ok(run.screen().includes('--token'));
});

test('a sale by pull in the real terminal process, keyboard only', async () => {
  const app = (await ledgerWorld(server)).app;
  const managerId = await addIndividual(server, app);
  const merchantId = await addBusiness(server, app, managerId, 'Pty Cafe');
  for (const feature of ['design_gl', 'pull_payment']) await server.client.post(`/admin/profiles/${merchantId}/features`, { feature }, { auth: { operator: true } });
  const token = await userToken(server, app, merchantId, { personalProfileId: managerId, concurrent: true, permissions, deviceUuid: 'pty-till' });
  const auth = { auth: { bearer: token } };
  const customerId = await addIndividual(server, app);
  const customerAuth = { auth: { bearer: await userToken(server, app, customerId, { concurrent: true, permissions }) } };
  const designId = (await server.client.post('/design/create', { title: 'Pty Gift', currency: 'USD', design_type: 'gl_design' }, auth)).body.id;
  const planId = (await server.client.post(`/design/${designId}/plan/create`, { title: 'Gift' }, auth)).body.plan_id;
  await issue(server, merchantId, '50.00');
  const sent = await server.client.post(`/design/${designId}/send`, { recipient_uid: `service:${customerId}`, distribution_plan_id: planId, amount: '25.00' }, auth);
  assert.is(sent.status, 200, sent.text);
  await server.client.post('/wallet/pull-consent', { merchant_uid: `service:${merchantId}` }, customerAuth);

  // The token comes from the environment: never on a command line (npm run echoes those) nor on the screen.
  const run = terminal(['--url', server.baseUrl, '--device', 'pty-till'], { CASHLOOP_TOKEN: token });
  await run.waitFor('1  Sale by pull');
  await run.waitFor('Pty Cafe');
  await run.waitFor('device pty-till');
  assert.not.ok(run.screen().includes(token), 'the token is not on the screen');
  run.type('1');
  await run.waitFor('Customer UID or code text');
  // Each entry is checked on the screen before Enter, as a cashier would (keys typed before a
  // screen takes input are lost, as on any terminal).
  run.type(customerId);
  await run.waitFor(`code text: ${customerId}`);
  run.type('\r');
  await run.waitFor('Pty Gift  25.00 USD available');
  run.type('10.00');
  await run.waitFor('Sale total: 10.00');
  run.type('\r');
  await run.waitFor('Paid in brand cash');
  run.type('\r');
  await run.waitFor('Take this payment?');
  run.type('y');
  await run.waitFor('Receipt');
  await run.waitFor('Remaining       15.00 USD of Pty Gift');
  assert.not.match(run.screen(), /at .*\.tsx?:\d+/, 'no stack trace');
  run.type('\r');
  await run.waitFor('q: quit');
  run.type('q');
  assert.is(await run.exited, 0, run.screen().slice(-500));
  const holdings = await server.engine.services.ledger.cash.holdings(server.engine.sql, customerId);
  assert.is(holdings.find((row) => row.loop_id === designId)?.amount, '15.00');
  const audit = await server.engine.services.ledger.cash.audit();
  assert.ok(audit.ok, audit.problems.join('; '));
});

test.run();
