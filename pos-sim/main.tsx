// `npm run pos -- [options]`: the merchant terminal. A client of the HTTP API only.
import { CommanderError } from 'commander';
import { render } from 'ink';
import React from 'react';
import { createPosClient } from './api.ts';
import { App } from './app.tsx';
import { parseOptions } from './options.ts';

async function main(): Promise<void> {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CommanderError) process.exit(error.exitCode);
    throw error;
  }
  if (!process.stdin.isTTY) {
    process.stderr.write('pos: the terminal needs an interactive terminal (TTY)\n');
    process.exit(2);
  }
  const client = createPosClient(options.url, options.token ?? null);
  // The terminal's own screen (as full-screen programs use): redraws start from a clean page, and
  // what the shell showed before (a command line carrying --token) is not on it.
  process.stdout.write('\u001B[?1049h\u001B[2J\u001B[H');
  onOwnScreen = true;
  process.on('exit', leaveOwnScreen);
  const app = render(
    <App options={{
      client, clientId: options.clientId, login: options.login, deviceUuid: options.device, businessId: options.business, processorToken: options.processorToken,
      exportDir: options.exportDir, currency: options.currency, today: () => new Date().toISOString().slice(0, 10),
    }} />,
  );
  await app.waitUntilExit();
}

let onOwnScreen = false;
function leaveOwnScreen(): void {
  if (onOwnScreen) process.stdout.write('\u001B[?1049l');
  onOwnScreen = false;
}

// Never a stack trace on the screen: one line (on the shell's screen, where it stays), then out.
process.on('uncaughtException', (error) => {
  leaveOwnScreen();
  process.stderr.write(`pos: ${error.message.split('\n')[0]}\n`);
  process.exit(1);
});
process.on('unhandledRejection', (reason) => {
  leaveOwnScreen();
  process.stderr.write(`pos: ${String((reason as Error)?.message ?? reason).split('\n')[0]}\n`);
  process.exit(1);
});

await main();
