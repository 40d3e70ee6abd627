// Counts what one API process says to Postgres and Redis: TCP pass-throughs that count the
// client's Sync ('S') and simple Query ('Q') messages to Postgres (one round trip each with
// postgres.js), its statements (Execute ('E') and simple Query messages) and its RESP commands to
// Redis, by name. Other clients of the same servers
// (tests running beside the bench) are not counted.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** Something that reads the byte stream a client sends. */
interface StreamParser {
  push(chunk: Buffer): void;
}

/**
 * A TCP pass-through to target that hands every byte a client sends to a fresh parser per
 * connection. Nagle is off on both legs, as the engine's own sockets, so the proxy adds no
 * delayed-ACK stalls to what it measures.
 */
async function startCountingProxy<P extends StreamParser>(target: { host: string; port: number }, newParser: () => P): Promise<{ port: number; parsers: P[]; close(): Promise<void> }> {
  const parsers: P[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const parser = newParser();
    parsers.push(parser);
    const upstream = createConnection(target);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      sockets.add(socket);
    }
    client.on('data', (chunk: Buffer) => {
      parser.push(chunk);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    parsers,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface PostgresCounter {
  port: number;
  roundTrips(): number;
  /** Statements run: extended-protocol Executes plus simple Queries (a BEGIN or COMMIT counts as one). */
  statements(): number;
  close(): Promise<void>;
}

/** Walks the frontend byte stream: the startup packet has no type byte, then type + int32 length frames. */
class FrontendParser {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  roundTrips = 0;
  statements = 0;

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
      if (type === 'E' || type === 'Q') this.statements++;
      this.buffer = this.buffer.subarray(1 + length);
    }
  }
}

export async function startPostgresCounter(target: { host: string; port: number }): Promise<PostgresCounter> {
  const proxy = await startCountingProxy(target, () => new FrontendParser());
  return {
    port: proxy.port,
    roundTrips: () => proxy.parsers.reduce((total, parser) => total + parser.roundTrips, 0),
    statements: () => proxy.parsers.reduce((total, parser) => total + parser.statements, 0),
    close: () => proxy.close(),
  };
}

/** Walks the RESP byte stream a client sends: each command is an array of bulk strings. */
class RespParser {
  private buffer: Buffer = Buffer.alloc(0);
  readonly commands = new Map<string, number>();

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const parsed = this.parseCommand();
      if (!parsed) return;
      this.commands.set(parsed.name, (this.commands.get(parsed.name) ?? 0) + 1);
      this.buffer = this.buffer.subarray(parsed.length);
    }
  }

  private parseCommand(): { name: string; length: number } | null {
    if (this.buffer.length === 0 || this.buffer[0] !== 0x2a) return null;
    let position = 0;
    const line = (): string | null => {
      const end = this.buffer.indexOf('\r\n', position);
      if (end < 0) return null;
      const text = this.buffer.subarray(position, end).toString('latin1');
      position = end + 2;
      return text;
    };
    const header = line();
    if (header === null) return null;
    const count = Number(header.slice(1));
    let name = '';
    for (let index = 0; index < count; index++) {
      const size = line();
      if (size === null) return null;
      const bytes = Number(size.slice(1));
      if (this.buffer.length < position + bytes + 2) return null;
      if (index === 0) name = this.buffer.subarray(position, position + bytes).toString('latin1').toLowerCase();
      position += bytes + 2;
    }
    return { name, length: position };
  }
}

export interface RedisCounter {
  port: number;
  commands(): Map<string, number>;
  close(): Promise<void>;
}

/** A pass-through in front of Redis counting the commands of the processes that connect through it. */
export async function startRedisCounter(target: { host: string; port: number }): Promise<RedisCounter> {
  const proxy = await startCountingProxy(target, () => new RespParser());
  return {
    port: proxy.port,
    commands() {
      const total = new Map<string, number>();
      for (const parser of proxy.parsers) for (const [name, count] of parser.commands) total.set(name, (total.get(name) ?? 0) + count);
      return total;
    },
    close: () => proxy.close(),
  };
}

export function commandDelta(before: Map<string, number>, after: Map<string, number>, exclude: readonly string[] = []): Map<string, number> {
  const delta = new Map<string, number>();
  for (const [name, count] of after) {
    if (exclude.includes(name)) continue;
    const grown = count - (before.get(name) ?? 0);
    if (grown > 0) delta.set(name, grown);
  }
  return delta;
}
