// The CLI's start-up (issue 22 item 2: a call under 0.5 s through `node cli/bin.js`, the fast way
// the README documents). Wall time, as an operator waits for it, of `node cli/bin.js --help` and of
// one real API call (`profile list` against the API started here on the embedded database), each
// as a ratio against `node -e ""` measured in the same run, interleaved so that all three see the
// same load; the absolute medians are checked against 0.5 s. A loaded machine inflates all three;
// the ratios stay comparable across machines.
// Run alone with `npm run bench -- --cli-startup`; writes bench/results/cli-startup.md.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { repositoryRoot, startApiProcess } from '../lib/api-process.ts';
import { formatMs, median } from '../lib/stats.ts';

export const cliStartupTargets = Object.freeze({ wallSecondsMax: 0.5 });
const runs = 15;

export interface CliStartupResult {
  runs: number;
  /** Median wall times, in ms. */
  nodeMs: number;
  helpMs: number;
  callMs: number;
  helpOk: boolean;
  callOk: boolean;
  loadAverage: { start: number; end: number };
}

/** Wall time of one process, from spawn to exit; fails on a non-zero exit. */
function wallMs(args: string[], env: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(process.execPath, args, { cwd: repositoryRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const elapsed = performance.now() - startedAt;
      if (code === 0) resolve(elapsed);
      else reject(new Error(`node ${args.join(' ')} exited ${code}: ${errors.slice(0, 500)}`));
    });
  });
}

export async function runCliStartup(log: (message: string) => void): Promise<CliStartupResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-cli-'));
  log('CLI start-up: starting the API on the embedded database');
  const api = await startApiProcess({ dataDir });
  const callEnv = { CASHLOOP_URL: api.baseUrl, CASHLOOP_OPERATOR_KEY: api.operatorKey };
  const help = ['cli/bin.js', '--help'];
  const call = ['cli/bin.js', 'profile', 'list', '--limit', '5'];
  try {
    // Untimed: the first run of cli/bin.js may rebuild its bundle, and the API warms up.
    await wallMs(help);
    await wallMs(call, callEnv);
    const loadStart = os.loadavg()[0];
    const times = { node: [] as number[], help: [] as number[], call: [] as number[] };
    for (let run = 0; run < runs; run++) {
      times.node.push(await wallMs(['-e', '']));
      times.help.push(await wallMs(help));
      times.call.push(await wallMs(call, callEnv));
    }
    const [nodeMs, helpMs, callMs] = [median(times.node), median(times.help), median(times.call)];
    log(`CLI start-up: node -e "" ${formatMs(nodeMs)} ms, --help ${formatMs(helpMs)} ms, profile list ${formatMs(callMs)} ms (medians of ${runs})`);
    const limitMs = cliStartupTargets.wallSecondsMax * 1000;
    return { runs, nodeMs, helpMs, callMs, helpOk: helpMs < limitMs, callOk: callMs < limitMs, loadAverage: { start: loadStart, end: os.loadavg()[0] } };
  } finally {
    await api.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function renderCliStartup(result: CliStartupResult): string {
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const row = (name: string, ms: number, ok: boolean | null) =>
    `| ${name} | ${formatMs(ms)} ms | ${(ms / result.nodeMs).toFixed(2)} | ${ok === null ? '-' : `${verdict(ok)} (< ${cliStartupTargets.wallSecondsMax} s)`} |`;
  return [
    '## CLI start-up (`node cli/bin.js`)',
    '',
    `Median wall time of ${result.runs} runs each, interleaved; load average (1 min) ${result.loadAverage.start.toFixed(2)} at the start, ${result.loadAverage.end.toFixed(2)} at the end on ${os.cpus().length} cores.`,
    '',
    '| command | wall | ratio to `node -e ""` | target |',
    '| --- | ---: | ---: | --- |',
    row('`node -e ""`', result.nodeMs, null),
    row('`node cli/bin.js --help`', result.helpMs, result.helpOk),
    row('`node cli/bin.js profile list` (one API call)', result.callMs, result.callOk),
    '',
  ].join('\n');
}
