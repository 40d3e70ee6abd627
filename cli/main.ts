// The operator CLI (`npx cashloop`): a client of the HTTP admin API. Each area registers its
// commands from cli/commands/<area>.ts with one line below.
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { CliError, defaultUrl } from './client.ts';
import { registerAppCommands } from './commands/apps.ts';
import { registerProfileCommands } from './commands/profiles.ts';
import { registerLedgerCommands } from './commands/ledger.ts';
import { registerPosCommands } from './commands/pos.ts';

/** env: an explicit environment (tests); by default engine/config reads the process's. */
export function buildProgram(env?: Record<string, string | undefined>): Command {
  const program = new Command('cashloop')
    .description('Operate a Cashloop server over its admin API')
    .option('--url <url>', `server URL (default ${defaultUrl})`)
    .option('--operator-key <key>', 'operator key (default: CASHLOOP_OPERATOR_KEY, then DATA_DIR/operator-key)')
    .option('--data-dir <dir>', 'where the server keeps operator-key (default: DATA_DIR or ./data)')
    .option('--json', 'print machine-readable JSON', false)
    .showHelpAfterError();
  registerAppCommands(program, env);
  registerProfileCommands(program, env);
  registerLedgerCommands(program, env);
  registerPosCommands(program, env);
  return program;
}

export async function runCli(argv: string[], env?: Record<string, string | undefined>): Promise<number> {
  const program = buildProgram(env);
  program.exitOverride();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof CliError) {
      process.stderr.write(`cashloop: ${error.message}\n`);
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
