// `npm run pos -- [options]`: the merchant terminal. A client of the HTTP API only.
import { Command, CommanderError } from 'commander';
import { render } from 'ink';
import React from 'react';
import { createPosClient } from './api.ts';
import { App } from './app.tsx';

export function parseOptions(argv: readonly string[]) {
  const program = new Command('pos')
    .description('Cashloop merchant terminal: redeem brand cash by pull or processor, take payment codes, end of day report')
    .option('--url <url>', 'the Cashloop API', 'http://127.0.0.1:8080')
    .option('--token <token>', "a merchant access token with pull_payment (its device id is the POS device); otherwise sign in")
    .option('--client-id <id>', 'app client id for direct authentication')
    .option('--login <login>', 'email or phone to sign in with')
    .option('--business <profile_id>', 'after signing in, act for this business you manage')
    .option('--device <uuid>', 'this terminal\'s device id (up to 36 characters)', 'pos-terminal-1')
    .option('--processor-token <token>', 'a processor token (offline + process_payment) for processor mode')
    .option('--currency <code>', 'currency of payment codes and outside tender', 'USD')
    .option('--export-dir <dir>', 'where end of day CSV files go', process.cwd())
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  program.parse(['node', 'pos', ...argv]);
  return program.opts<{ url: string; token?: string; clientId?: string; login?: string; business?: string; device: string; processorToken?: string; currency: string; exportDir: string }>();
}

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
  const app = render(
    <App options={{
      client, clientId: options.clientId, login: options.login, deviceUuid: options.device, businessId: options.business, processorToken: options.processorToken,
      exportDir: options.exportDir, currency: options.currency, today: () => new Date().toISOString().slice(0, 10),
    }} />,
  );
  await app.waitUntilExit();
}

// Never a stack trace on the screen: one line, then out.
process.on('uncaughtException', (error) => {
  process.stderr.write(`pos: ${error.message.split('\n')[0]}\n`);
  process.exit(1);
});
process.on('unhandledRejection', (reason) => {
  process.stderr.write(`pos: ${String((reason as Error)?.message ?? reason).split('\n')[0]}\n`);
  process.exit(1);
});

await main();
