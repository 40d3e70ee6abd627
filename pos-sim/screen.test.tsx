// Proves the terminal's redraws leave the screen as ink drew it, first column included: the app
// runs as `npm run pos` runs it (ink's real redraw, not the test renderer's frames) into a small
// terminal emulator of a given width, against a stub server whose titles, names and messages carry a
// carriage return and a tab, and its longest lines (end of day, payment code, a long refusal, a
// sale). After every redraw each row of the emulated screen must be the frame's row, and no line
// may be wider than the terminal less one column. Both failed before: a "\r" inside a business title
// sent the cursor back to the first column mid-line, and in a terminal narrower than the fixed 79
// columns the terminal wrapped each long line itself, into the first column of the next row.
// test-process: own (ink reads CI when it loads: this file must load it after deleting CI)
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import React from 'react';
import stringWidth from 'string-width';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

// Ink draws nothing until it exits when it believes it runs in CI: this test needs its live redraws.
delete process.env.CI;
const { render } = await import('ink');
const { App } = await import('./app.tsx');
const { createPosClient } = await import('./api.ts');

const merchant = { id: '4821937465', title: 'Corner\rCafe\tand Bakery on the Main Street' };
const loop = { loop_id: '7301928374', currency: 'USD', title: 'Gift\rcard\tof the Corner Cafe and Bakery', amount: '40.00' };
const reportRow = { settlement_type: 'redeem', received_currency: 'USD', received_amount: '1234567.00', settle_funded: '1234567.00', settle_pending: '0.00', settle_settled: '0.00', pos_device_id: 'till-9', transfer_id: '1' };

/** The server's answers, by method and path. */
function answer(method: string, path: string): { status: number; body: unknown } {
  if (method === 'GET' && path === '/wallet/info') return { status: 200, body: { profile: merchant } };
  if (method === 'POST' && path === '/wallet/report/receivable') return { status: 200, body: { report: ['redeem', 'immediate', 'non_service'].map((type) => ({ ...reportRow, settlement_type: type })) } };
  if (method === 'GET' && path === '/pull/redeemable') return { status: 200, body: { loops: [loop], sender_info: { title: 'Dana\rBuyer' } } };
  if (method === 'POST' && path === '/wallet/receive') {
    return { status: 400, body: { error: 'invalid_request', error_description: `the code\r${'was not found at this shop, nor at any other shop of the network '.repeat(2)}` } };
  }
  return { status: 404, body: { error: 'not_found' } };
}

let server: Server;
let baseUrl: string;

test.before(async () => {
  server = createServer((request, response) => {
    const { status, body } = answer(request.method ?? 'GET', new URL(request.url ?? '/', 'http://x').pathname);
    request.resume();
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(() => {
  server.closeAllConnections();
  server.close();
});

/**
 * A terminal of `columns` x `rows`, as xterm draws: printable characters at their width, wrapping
 * at the last column (pending until the next character), "\n" as CR LF (the tty's ONLCR), "\r", tab
 * stops every 8, backspace, and the CSI sequences ink writes (erase line and screen, cursor moves).
 */
class Emulator {
  rows: string[][];
  row = 0;
  column = 0;
  pendingWrap = false;
  constructor(readonly columns: number, readonly height: number) {
    this.rows = Array.from({ length: height }, () => this.blank());
  }
  blank(): string[] {
    return Array.from({ length: this.columns }, () => ' ');
  }
  lineFeed(): void {
    if (this.row === this.height - 1) this.rows = [...this.rows.slice(1), this.blank()];
    else this.row += 1;
  }
  print(character: string): void {
    const width = stringWidth(character);
    if (width === 0) return;
    if (this.pendingWrap || this.column + width > this.columns) {
      this.column = 0;
      this.lineFeed();
    }
    this.pendingWrap = false;
    this.rows[this.row][this.column] = character;
    if (width === 2 && this.column + 1 < this.columns) this.rows[this.row][this.column + 1] = '';
    this.column += width;
    if (this.column >= this.columns) {
      this.column = this.columns - 1;
      this.pendingWrap = true;
    }
  }
  control(character: string): void {
    this.pendingWrap = false;
    if (character === '\r') this.column = 0;
    else if (character === '\n') {
      this.column = 0;
      this.lineFeed();
    } else if (character === '\t') this.column = Math.min(this.columns - 1, (Math.floor(this.column / 8) + 1) * 8);
    else if (character === '\b') this.column = Math.max(0, this.column - 1);
  }
  csi(parameters: string, final: string): void {
    this.pendingWrap = false;
    const numbers = parameters.replace('?', '').split(';').map((value) => Number(value) || 0);
    const count = Math.max(1, numbers[0]);
    if (parameters.startsWith('?')) return; // cursor shown or hidden, synchronized output
    if (final === 'A') this.row = Math.max(0, this.row - count);
    else if (final === 'B') this.row = Math.min(this.height - 1, this.row + count);
    else if (final === 'C') this.column = Math.min(this.columns - 1, this.column + count);
    else if (final === 'D') this.column = Math.max(0, this.column - count);
    else if (final === 'G') this.column = Math.min(this.columns - 1, count - 1);
    else if (final === 'H') [this.row, this.column] = [Math.max(1, numbers[0]) - 1, Math.max(1, numbers[1] ?? 1) - 1];
    else if (final === 'K') this.eraseLine(numbers[0]);
    else if (final === 'J' && numbers[0] >= 2) this.rows = this.rows.map(() => this.blank());
  }
  eraseLine(mode: number): void {
    const line = this.rows[this.row];
    for (let column = mode === 1 || mode === 2 ? 0 : this.column; column < (mode === 1 ? this.column + 1 : this.columns); column++) line[column] = ' ';
  }
  write(data: string): void {
    const pattern = /\u001B\[([0-9;?]*)([@-~])|\u001B\][^\u0007]*\u0007|\u001B.|[\u0000-\u001F]|[^\u0000-\u001F\u001B]/gsu;
    for (const match of data.matchAll(pattern)) {
      if (match[2] !== undefined) this.csi(match[1], match[2]);
      else if (match[0].startsWith('\u001B')) continue;
      else if (match[0] < ' ') this.control(match[0]);
      else for (const character of match[0]) this.print(character);
    }
  }
  screen(): string[] {
    return this.rows.map((line) => line.join('').trimEnd());
  }
}

/** What a redraw puts on the screen: ink's write without its leading erase and cursor moves, nor colours. */
function frameOf(write: string): string[] {
  const frame = write.replace(/^(?:\u001B\[[0-9;?]*[@-~])+/, '').replace(/\u001B\[[0-9;?]*[@-~]/g, '');
  return frame.replace(/\n$/, '').split('\n').map((line) => line.trimEnd());
}

class TerminalStdout extends EventEmitter {
  isTTY = true;
  emulator: Emulator;
  problems: string[] = [];
  frames = 0;
  constructor(readonly columns: number, readonly rows: number) {
    super();
    this.emulator = new Emulator(columns, rows);
  }
  write = (data: string): boolean => {
    this.emulator.write(data);
    const frame = frameOf(data);
    if (frame.join('') === '') return true;
    this.frames += 1;
    const screen = this.emulator.screen();
    for (const [index, line] of frame.entries()) {
      if (stringWidth(line) > this.columns - 1) this.problems.push(`frame ${this.frames}, row ${index}: ${stringWidth(line)} columns, wider than ${this.columns - 1}: ${JSON.stringify(line)}`);
      if (screen[index] !== line) this.problems.push(`frame ${this.frames}, row ${index}: the screen shows ${JSON.stringify(screen[index])}, ink drew ${JSON.stringify(line)}`);
    }
    return true;
  };
}

class KeyboardStdin extends EventEmitter {
  isTTY = true;
  data: string | null = null;
  write(data: string): void {
    this.data = data;
    this.emit('readable');
  }
  read(): string | null {
    const { data } = this;
    this.data = null;
    return data;
  }
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

async function waitForScreen(stdout: TerminalStdout, text: string): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (!stdout.emulator.screen().join('\n').includes(text)) {
    if (performance.now() > deadline) throw new Error(`no "${text}" on the screen:\n${stdout.emulator.screen().join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Every screen with its longest lines: keys, then what the screen shows once they are taken (the
 * next keys go at once). The menu, the end of day, the payment code refused with a long message,
 * and a sale of brand cash with a long title.
 */
const walk: [keys: string | null, shown: string][] = [
  [null, 'device till-9'], [null, 'Bakery'], ['4', 'e: export CSV'], ['\u001B', 'q  Quit'], ['2', 'The customer'],
  ['CODE1\r12.00\r\r\r', 'was not found'], ['\u001B', 'q  Quit'], ['1', 'Customer UID'], ['4829104756\r', 'Sale total'],
];

/** Walks every screen in a terminal of `columns` x 24. */
async function walkThrough(columns: number): Promise<TerminalStdout> {
  const stdout = new TerminalStdout(columns, 24);
  const stdin = new KeyboardStdin();
  // As main.tsx does: the terminal's own screen, from its top left corner.
  stdout.write('\u001B[?1049h\u001B[2J\u001B[H');
  const options = { client: createPosClient(baseUrl, 'token'), deviceUuid: 'till-9', exportDir: '/tmp', currency: 'USD', today: () => '2026-01-01' };
  const app = render(<App options={options} />, { stdout: stdout as never, stdin: stdin as never, stderr: new TerminalStdout(columns, 24) as never, exitOnCtrlC: false, patchConsole: false });
  try {
    for (const [keys, shown] of walk) {
      if (keys) stdin.write(keys);
      await waitForScreen(stdout, shown);
    }
  } finally {
    app.unmount();
    app.cleanup();
  }
  return stdout;
}

for (const columns of [80, 60]) {
  test(`every redraw at ${columns} columns leaves each row as ink drew it, no line wider than ${columns - 1} columns`, async () => {
    const stdout = await walkThrough(columns);
    assert.ok(stdout.frames > 5, `${stdout.frames} frames`);
    assert.equal(stdout.problems.slice(0, 5), [], stdout.emulator.screen().join('\n'));
  });
}

test.run();
