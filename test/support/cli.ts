// Runs the operator CLI in-process against a test server, capturing what it prints.
import { runCli } from '../../cli/main.ts';
import { testOperatorKey } from './http.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `cashloop --url baseUrl ...args` with env as its environment; stdout and stderr captured. */
export async function runCliCaptured(baseUrl: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCliRaw(['--url', baseUrl, ...args], env);
}

/** `cashloop --url baseUrl --operator-key <the test key> ...args`; `out` is stdout followed by stderr. */
export async function runOperatorCli(baseUrl: string, args: readonly string[]): Promise<CliRun & { out: string }> {
  const run = await runCliCaptured(baseUrl, ['--operator-key', testOperatorKey, ...args]);
  return { ...run, out: run.stdout + run.stderr };
}

/** `cashloop ...args` exactly as given (no --url added), with env as its whole environment. */
export async function runCliRaw(args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  try {
    const code = await runCli([...args], env);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
}
