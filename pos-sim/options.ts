// What the terminal is started with (its command line and environment), and its screens.
import { homedir, hostname } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { processEnvironment, resolveServer, type Environment } from '../cli/settings.ts';
import type { PosClient } from './api.ts';

/** The terminal's device when it signs in and none is named: stable per machine, at most 36 characters. */
export function defaultDevice(hostname: string): string {
  return `pos-${hostname.replace(/[^0-9A-Za-z_-]/g, '-')}`.slice(0, 36);
}

/**
 * Where end of day CSV files go unless --export-dir says: the user's data directory, never the
 * current one (run from a checkout, an export would land in the repository).
 */
export function defaultExportDir(env: Environment, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (platform === 'win32') return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'cashloop', 'pos-exports');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'cashloop', 'pos-exports');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'cashloop', 'pos-exports');
}

/** Options, with the server found as the CLI finds it (--url, CASHLOOP_URL, PORT, config, 8080) and the token from CASHLOOP_TOKEN. */
export function parseOptions(argv: readonly string[], env: Environment = processEnvironment()) {
  const program = new Command('pos')
    .description('Cashloop merchant terminal: redeem brand cash by pull or processor, take payment codes, end of day report')
    .option('--url <url>', 'the Cashloop API (default: CASHLOOP_URL, then http://127.0.0.1:$PORT, then port 8080)')
    .option('--token <token>', "a merchant access token with pull_payment (its device id is the POS device; CASHLOOP_TOKEN keeps it off the command line and off the screen); otherwise sign in")
    .option('--client-id <id>', 'app client id for direct authentication')
    .option('--login <login>', 'email or phone to sign in with')
    .option('--business <profile_id>', 'after signing in, act for this business you manage')
    .option('--device <uuid>', "this terminal's device id (up to 36 characters): the one it signs in with, or the one its --token was issued for")
    .option('--processor-token <token>', 'a processor token (offline + process_payment) for processor mode')
    .option('--currency <code>', 'currency of payment codes and outside tender', 'USD')
    .option('--export-dir <dir>', 'where end of day CSV files go (created if missing)', defaultExportDir(env))
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) });
  program.parse(['node', 'pos', ...argv]);
  const options = program.opts<{ url?: string; token?: string; clientId?: string; login?: string; business?: string; device?: string; processorToken?: string; currency: string; exportDir: string }>();
  const token = options.token ?? (env.CASHLOOP_TOKEN || undefined);
  // A token carries its own device, which the terminal cannot read: shown only when named.
  const device = options.device ?? (token ? null : defaultDevice(hostname()));
  return { ...options, url: resolveServer({ url: options.url }, env).url, token, device };
}


export interface AppOptions {
  client: PosClient;
  clientId?: string;
  login?: string;
  /** The POS device: the one it signs in with, or the one named for its token; null when unknown. */
  deviceUuid: string | null;
  businessId?: string;
  processorToken?: string;
  exportDir: string;
  currency: string;
  today: () => string;
}

export type Screen = 'signin' | 'menu' | 'sale' | 'paycode' | 'proc' | 'report';
