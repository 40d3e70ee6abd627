// One process that runs test files one after another, as the runner (test/run.ts) hands them over:
// a file at a time, each exactly as uvu's CLI runs a file alone (its tests, its before and after
// hooks, uvu's own summary), so a process start, the TypeScript compile of the engine and PGlite's
// WebAssembly are paid once for several files instead of once per file.
// The runner writes one file path per line to fd 3 and closes it when it has no more files for this
// process; before and after each file this prints a marker line on stdout (stderr is merged into
// stdout by the runner), which the runner splits the output by. The process then exits by itself
// once every file has stopped what it started (a handle left open keeps it alive until the runner's timeout).
import { createInterface } from 'node:readline';
import { Socket } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The runner's marker (its first argument): lines `<marker> start <file>` and `<marker> end <file> <status> <rss MB>`. */
const fileMarker = process.argv[2];

declare global {
  // uvu's globals: the queue of files' suites, and whether test.run() queues instead of running.
  var UVU_QUEUE: unknown[][];
  var UVU_DEFER: number;
  var UVU_INDEX: number;
}

async function runOne(uvu: { exec: (bail?: boolean) => Promise<void> }, file: string): Promise<number> {
  // A fresh queue per file, named by the file as uvu's CLI names it; test.run() adds the file's suites.
  globalThis.UVU_QUEUE = [[file]];
  globalThis.UVU_INDEX = 0;
  process.exitCode = 0;
  try {
    await import(pathToFileURL(path.resolve(file)).href);
  } catch (error) {
    // What uvu's CLI prints before it exits with 1 when a file fails to load.
    console.error((error as Error)?.stack ?? String(error));
    return 1;
  }
  await uvu.exec();
  const status = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return status;
}

async function main(): Promise<void> {
  globalThis.UVU_DEFER = 1;
  const uvu = await import('uvu');
  const commands = createInterface({ input: new Socket({ fd: 3, readable: true, writable: false }) });
  let failed = false;
  for await (const file of commands) {
    if (!file) continue;
    process.stdout.write(`\n${fileMarker} start ${file}\n`);
    const status = await runOne(uvu, file);
    failed ||= status !== 0;
    const rssMegabytes = Math.round(process.memoryUsage.rss() / 2 ** 20);
    process.stdout.write(`\n${fileMarker} end ${file} ${status} ${rssMegabytes}\n`);
  }
  process.exitCode = failed ? 1 : 0;
}

await main();
