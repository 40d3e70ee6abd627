// The operator key a server accepts on the admin API: from the settings, or one kept in the data
// directory, created at the first start.
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../engine/config.ts';
import { randomSecret } from '../engine/ids.ts';
import { operatorKeyBytes } from '../engine/limits.ts';

/** The operator key: CASHLOOP_OPERATOR_KEY, or one created at first start in DATA_DIR/operator-key (mode 0600). */
export function operatorKeyFor(config: Config): { key: string; file: string | null } {
  if (config.operatorKey) return { key: config.operatorKey, file: null };
  const file = path.resolve(config.dataDir, 'operator-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file };
  mkdirSync(path.dirname(file), { recursive: true });
  // Several processes may share a data directory and start at once: each writes a key of its own
  // aside, links it into place (which fails if another got there first) and reads the winner, so
  // none fails and no one reads a half-written file.
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, `${randomSecret(operatorKeyBytes)}\n`, { mode: 0o600 });
  chmodSync(aside, 0o600);
  try {
    linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
  return { key: readFileSync(file, 'utf8').trim(), file };
}

