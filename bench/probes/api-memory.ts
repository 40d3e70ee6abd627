// Where an idle API process's resident memory is: its RSS and the main V8 heap's spaces,
// `--wait-seconds` after /readyz, on a fresh Postgres database.
//   node --import tsx bench/probes/api-memory.ts [--wait-seconds 3] [--node-option=--max-semi-space-size=8 ...]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadBenchEnvironment } from '../config.ts';
import { startApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';

const { values } = parseArgs({ options: { 'wait-seconds': { type: 'string', default: '3' }, 'node-option': { type: 'string', multiple: true, default: [] } } });
const scratch = mkdtempSync(path.join(tmpdir(), 'cashloop-api-memory-'));
// A preload that prints the heap's spaces on SIGUSR2 (stderr, which the bench keeps).
const preload = path.join(scratch, 'heap-spaces.mjs');
writeFileSync(preload, `import v8 from 'node:v8';
process.on('SIGUSR2', () => {
  const mb = (bytes) => (bytes / 1048576).toFixed(1);
  const lines = v8.getHeapSpaceStatistics().filter((space) => space.physical_space_size > 0).map((space) => \`heap \${space.space_name}: \${mb(space.physical_space_size)} MB resident, \${mb(space.space_used_size)} MB used\`);
  process.stderr.write(\`heap total: \${mb(v8.getHeapStatistics().total_physical_size)} MB resident\\n\${lines.join('\\n')}\\n\`);
});
`);
const environment = loadBenchEnvironment();
const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_probe');
const api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir: path.join(scratch, 'data'), nodeArguments: ['--import', preload, ...(values['node-option'] ?? [])] });
try {
  await new Promise((resolve) => setTimeout(resolve, Number(values['wait-seconds']) * 1000));
  const status = readFileSync(`/proc/${api.pid}/status`, 'utf8');
  process.stdout.write(`${status.split('\n').filter((line) => /^(VmRSS|RssAnon|RssFile):/.test(line)).join('\n')}\n`);
  process.kill(api.pid, 'SIGUSR2');
  await new Promise((resolve) => setTimeout(resolve, 500));
  process.stdout.write(`${api.output().split('\n').filter((line) => line.startsWith('heap ')).join('\n')}\n`);
} finally {
  await api.stop();
  await database.drop();
  rmSync(scratch, { recursive: true, force: true });
}
