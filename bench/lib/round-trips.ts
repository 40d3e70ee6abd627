// Counts what one API process says to Postgres and Redis: a TCP pass-through in front of
// Postgres that counts the client's Sync ('S') and simple Query ('Q') messages (one round trip
// each with postgres.js), and Redis's own INFO commandstats before and after.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';

export interface PostgresCounter {
  port: number;
  roundTrips(): number;
  close(): Promise<void>;
}

/** Walks the frontend byte stream: the startup packet has no type byte, then type + int32 length frames. */
class FrontendParser {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  roundTrips = 0;

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (!this.started) {
        if (this.buffer.length < 8) return;
        const length = this.buffer.readInt32BE(0);
        const code = this.buffer.readInt32BE(4);
        if (this.buffer.length < length) return;
        this.buffer = this.buffer.subarray(length);
        // SSLRequest (80877103) is answered with one byte, then the real startup packet follows.
        if (code !== 80877103) this.started = true;
        continue;
      }
      if (this.buffer.length < 5) return;
      const type = String.fromCharCode(this.buffer[0]);
      const length = this.buffer.readInt32BE(1);
      if (this.buffer.length < 1 + length) return;
      if (type === 'S' || type === 'Q') this.roundTrips++;
      this.buffer = this.buffer.subarray(1 + length);
    }
  }
}

export async function startPostgresCounter(target: { host: string; port: number }): Promise<PostgresCounter> {
  const parsers: FrontendParser[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const parser = new FrontendParser();
    parsers.push(parser);
    const upstream = createConnection(target);
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (chunk: Buffer) => {
      parser.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    roundTrips: () => parsers.reduce((total, parser) => total + parser.roundTrips, 0),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Total Redis commands processed so far, by command name (INFO commandstats). */
export async function redisCommandCounts(url: string): Promise<Map<string, number>> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const text = await redis.info('commandstats');
    const counts = new Map<string, number>();
    for (const line of text.split('\n')) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (match) counts.set(match[1], Number(match[2]));
    }
    return counts;
  } finally {
    redis.disconnect();
  }
}

export function commandDelta(before: Map<string, number>, after: Map<string, number>, exclude: readonly string[] = ['info']): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, count] of after) {
    if (exclude.includes(name)) continue;
    const grown = count - (before.get(name) ?? 0);
    if (grown > 0) delta.set(name, grown);
  }
  return delta;
}
