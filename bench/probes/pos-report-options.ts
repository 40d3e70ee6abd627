// The receivable report at 100,000 rows (bench/phases/pos-report.ts) once per set of API node
// options, for an A/B of V8 flags against the usual start:
//   node --import tsx bench/probes/pos-report-options.ts default --max-semi-space-size=8 [...]
// Each argument is one run: `default` adds nothing; otherwise comma-separated node options.
import os from 'node:os';
import { loadBenchEnvironment } from '../config.ts';
import { renderPosReport, runPosReport } from '../phases/pos-report.ts';

const variants = process.argv.slice(2).map((variant) => (variant === 'default' ? [] : variant.split(',')));
for (const nodeArguments of variants) {
  const result = await runPosReport(loadBenchEnvironment(), (message) => process.stderr.write(`${message}\n`), undefined, nodeArguments);
  process.stdout.write(`\n### API node options: ${nodeArguments.join(' ') || '(none)'}, load average ${os.loadavg()[0].toFixed(2)}\n\n${renderPosReport(result)}\n`);
}
