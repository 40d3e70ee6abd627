// Runs the test suite with two busy CPU loops beside it, as on a shared machine: the suite must
// pass at load (issue 23). The loops are processes of their own, killed in every outcome.
// Usage: npm run test:load [-- <the arguments of npm test>]; CASHLOOP_LOAD_LOOPS changes the number of loops.
import { spawn, type ChildProcess } from 'node:child_process';

const loopCount = Number(process.env.CASHLOOP_LOAD_LOOPS) || 2;
const loops: ChildProcess[] = Array.from({ length: loopCount }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopLoops = () => {
  for (const loop of loops) loop.kill('SIGKILL');
};
process.on('exit', stopLoops);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

process.stdout.write(`Running the suite beside ${loopCount} busy CPU loops\n`);
const suite = spawn(process.execPath, ['--import', 'tsx', 'test/run.ts', ...process.argv.slice(2)], { stdio: 'inherit' });
suite.on('exit', (code, signal) => {
  stopLoops();
  process.exit(signal ? 1 : (code ?? 1));
});
