// The operator CLI (`npx cashloop`): a client of the HTTP admin API. Each area registers its
// commands from cli/commands/<area>.ts with one line below. It never imports engine/ at start
// (engine/money.ts is loaded only to explain an amount error), so `cashloop --help` is quick.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { registerAppCommands } from './commands/apps.ts';
import { registerProfileCommands } from './commands/profiles.ts';
import { registerLedgerCommands } from './commands/ledger.ts';
import { registerDesignCommands } from './commands/designs.ts';
import { registerPosCommands } from './commands/pos.ts';
import { registerConfigCommands } from './commands/config.ts';
import { registerCompletionCommand } from './commands/completion.ts';
import { CliError, defaultPort, processEnvironment, type Environment } from './settings.ts';
import { registerOfferCommands } from './commands/offers.ts';
import { registerWebhookCommands } from './commands/webhooks.ts';
import { registerFundProxyCommands } from './commands/fundproxy.ts';

export function cliVersion(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** env: an explicit environment (tests); by default the process's. */
export function buildProgram(env: Environment = processEnvironment()): Command {
  const program = new Command('cashloop')
    .description('Operate a Cashloop server over its admin API')
    .version(cliVersion(), '-V, --version', 'print the version')
    .option('--url <url>', `server URL (default: CASHLOOP_URL, then http://127.0.0.1:$PORT, then config url, then port ${defaultPort})`)
    .option('--operator-key <key>', 'operator key (default: CASHLOOP_OPERATOR_KEY, then config operator-key, then DATA_DIR/operator-key)')
    .option('--data-dir <dir>', 'where the server keeps operator-key (default: DATA_DIR, then config data-dir, then ./data)')
    .option('--json', 'print machine-readable JSON (errors too, on stderr)', false)
    .showHelpAfterError();
  registerAppCommands(program, env);
  registerProfileCommands(program, env);
  registerLedgerCommands(program, env);
  registerDesignCommands(program, env);
  registerPosCommands(program, env);
  registerConfigCommands(program, env);
  registerCompletionCommand(program);
  registerOfferCommands(program, env);
  registerWebhookCommands(program, env);
  registerFundProxyCommands(program, env);
  return program;
}

function wantsJson(argv: readonly string[]): boolean {
  return argv.includes('--json');
}

/** Prints an error: one plain line, or under --json one JSON object; both on stderr. */
function reportError(argv: readonly string[], error: CliError): void {
  if (wantsJson(argv)) {
    const { status, invalid } = error.details;
    process.stderr.write(`${JSON.stringify({ error: error.code, message: error.message, ...(status ? { status } : {}), ...(invalid ? { invalid } : {}) })}\n`);
  } else {
    process.stderr.write(`cashloop: ${error.message}\n`);
  }
}

export async function runCli(argv: string[], env?: Environment): Promise<number> {
  const program = buildProgram(env);
  program.exitOverride();
  if (wantsJson(argv)) {
    // Commander's own usage errors become JSON too.
    const quiet = (command: Command): void => {
      command.exitOverride().configureOutput({ writeErr: () => {}, outputError: () => {} });
      command.commands.forEach(quiet);
    };
    quiet(program);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode !== 0 && wantsJson(argv)) reportError(argv, new CliError(error.message.replace(/^error: /, ''), error.code.replace(/^commander\./, '').replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)));
      return error.exitCode;
    }
    if (error instanceof CliError) {
      reportError(argv, error);
      return 1;
    }
    if ((error as Error).name === 'ExitPromptError') return 130;
    throw error;
  }
}

// Run directly (npm run cli -- ...); cli/bin.js calls runCli itself.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
