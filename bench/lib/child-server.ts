// A server under test as a child process (`node --import tsx <script>`), so it has its own event
// loop and CPU like a deployed service: started with its environment, awaited on a ready path,
// its output kept for failure reports, and stopped with SIGTERM (its graceful path).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const readyTimeoutMs = 90_000;
const readyPollMs = 200;
const stopTimeoutMs = 15_000;
const outputKeptChars = 20_000;

export interface ChildServer {
  baseUrl: string;
  pid: number;
  /** The last lines the process wrote (stderr and stdout), for a failure report. */
  output(): string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts script (relative to cwd, the repository root by default) with env plus PORT and HOST; resolves once readyPath answers 2xx. */
export async function startChildServer(options: { name: string; script: string; env: Record<string, string>; readyPath: string; nodeArguments?: string[]; cwd?: string }): Promise<ChildServer> {
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ...options.env,
    PORT: String(port),
    HOST: '127.0.0.1',
  };
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArguments ?? []), '--import', 'tsx', options.script], { cwd: options.cwd ?? repositoryRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-outputKeptChars);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null = null;
  const exit = new Promise<void>((resolve) => child.once('exit', (code) => {
    exited = code ?? -1;
    resolve();
  }));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (exited !== null) throw new Error(`the ${options.name} process exited (${exited}) before it was ready:\n${output}`);
    try {
      const response = await fetch(`${baseUrl}${options.readyPath}`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the ${options.name} process was not ready within ${readyTimeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, readyPollMs));
  }
  return {
    baseUrl,
    pid: child.pid!,
    output: () => output,
    async stop() {
      if (exited !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
      await exit;
      clearTimeout(timer);
    },
  };
}
