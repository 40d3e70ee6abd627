// The high-availability topology on one machine, from Debian packages, on loopback ports: one etcd
// member, two Patroni nodes (a Postgres 15 primary and its synchronous standby), HAProxy in front of
// both (the primary's port chosen by Patroni's REST health checks) and of two API processes, and one
// Redis. Every process is started with its pid in <dir>/run, so `down` (or a test) stops exactly
// what was started and nothing else. Used by tools/ha/main.ts and test/ha-*.test.ts.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomSecret } from '../../engine/ids.ts';
import { operatorKeyBytes } from '../../engine/limits.ts';

export const pgBin = '/usr/lib/postgresql/15/bin';
const repository = path.resolve(import.meta.dirname, '../..');
const database = 'cashloop';
const scope = 'cashloop';
export const nodeNames = ['pg1', 'pg2'] as const;
/** How long `up` waits for each part on a loaded 2-core machine before it gives up with the part's log. */
const waitMsMax = Object.freeze({ etcd: 30_000, primary: 120_000, standby: 120_000, api: 180_000, haproxy: 30_000, stop: 30_000 });
const debianPackages = ['patroni', 'etcd-server', 'etcd-client', 'haproxy', 'redis-server', 'postgresql-15'];
const commandsOfPackages: Record<string, string> = { patroni: 'patroni', 'etcd-server': 'etcd', 'etcd-client': 'etcdctl', haproxy: 'haproxy', 'redis-server': 'redis-server', 'postgresql-15': `${pgBin}/postgres` };

/** Every port of the topology, from one base; all on 127.0.0.1. */
export interface Ports {
  api: number;
  primary: number;
  replicas: number;
  haproxyStats: number;
  etcdClient: number;
  etcdPeer: number;
  postgres: [number, number];
  patroni: [number, number];
  redis: number;
  apis: [number, number];
}

export function portsFrom(base: number): Ports {
  return {
    api: base, primary: base + 1, replicas: base + 2, haproxyStats: base + 3,
    etcdClient: base + 10, etcdPeer: base + 11,
    postgres: [base + 20, base + 21], patroni: [base + 30, base + 31],
    redis: base + 40, apis: [base + 50, base + 51],
  };
}

export interface Topology {
  /** The scratch directory: data, configuration, logs and pid files (never the repository). */
  dir: string;
  ports: Ports;
  /** Timings of Patroni's leader lease, in seconds (failover takes about ttl at worst). */
  patroni: { ttlSeconds: number; loopWaitSeconds: number; retryTimeoutSeconds: number };
  /**
   * Whether the processes outlive the one that started them (`npm run ha -- up`), or stay in its
   * process group (a test: the test runner's kill of a file that overran takes them along).
   */
  detached: boolean;
  /**
   * fsync of the Postgres nodes. On for `npm run ha`; a test turns it off (it kills a postmaster,
   * never the machine, so the page cache keeps every write, and the machine is shared).
   */
  fsync: boolean;
}

export function topology(dir: string, base: number, options: { detached?: boolean; fsync?: boolean } = {}): Topology {
  return { dir: path.resolve(dir), ports: portsFrom(base), patroni: { ttlSeconds: 10, loopWaitSeconds: 1, retryTimeoutSeconds: 4 }, detached: options.detached ?? true, fsync: options.fsync ?? true };
}

/** What Cashloop's processes are given: HAProxy's read-write port always reaches the current primary. */
export function databaseUrl(top: Topology): string {
  return `postgres://postgres@127.0.0.1:${top.ports.primary}/${database}`;
}

/** The same database through the standby (stale reads: reports, history). */
export function replicaUrl(top: Topology): string {
  return `postgres://postgres@127.0.0.1:${top.ports.replicas}/${database}`;
}

export function redisUrl(top: Topology): string {
  return `redis://127.0.0.1:${top.ports.redis}`;
}

export function apiUrl(top: Topology): string {
  return `http://127.0.0.1:${top.ports.api}`;
}

export function operatorKeyFile(top: Topology): string {
  return path.join(top.dir, 'api', 'operator-key');
}

/** Packages whose command is missing. */
export function missingPackages(): string[] {
  return debianPackages.filter((name) => {
    const command = commandsOfPackages[name];
    return command.startsWith('/') ? !existsSync(command) : spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0;
  });
}

/** Installs the missing Debian packages with apt-get (root only); returns why it could not, or null. */
export function installPackages(log: (line: string) => void = () => {}): string | null {
  const missing = missingPackages();
  if (missing.length === 0) return null;
  if (process.getuid?.() !== 0) return `missing Debian packages ${missing.join(', ')}, and only root can install them (apt-get install -y ${missing.join(' ')})`;
  log(`installing ${missing.join(', ')} with apt-get`);
  // Debian starts a package's service on install (etcd on 2379, Redis on 6379, a Postgres cluster on
  // 5432) unless policy-rc.d forbids it: the topology starts its own, on its own ports, and nothing else.
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\n# Written by tools/ha while it installs packages; removed after.\nexit 101\n', { mode: 0o755 });
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => spawnSync('apt-get', ['install', '-y', '-q', ...missing], { encoding: 'utf8', env: environment, timeout: 600_000 });
  let result;
  try {
    result = install();
    if (result.status !== 0) {
      spawnSync('apt-get', ['update', '-q'], { encoding: 'utf8', env: environment, timeout: 300_000 });
      result = install();
    }
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  if (result.status !== 0) return `apt-get install ${missing.join(' ')} failed: ${(result.stderr || result.stdout).slice(-1000)}`;
  const still = missingPackages();
  return still.length === 0 ? null : `still missing after apt-get: ${still.join(', ')}`;
}

/** The user the database processes run as: postgres when we are root (Postgres refuses root), else ourselves. */
function serviceUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid };
}

function chownToService(target: string): void {
  if (serviceUser()) spawnSync('chown', ['-R', 'postgres:postgres', target]);
}

const runDir = (top: Topology) => path.join(top.dir, 'run');
const logDir = (top: Topology) => path.join(top.dir, 'log');
export const dataDirOf = (top: Topology, node: number) => path.join(top.dir, nodeNames[node]);

/** Starts a detached process with its output in log/<name>.log and its pid in run/<name>.pid. */
function startProcess(top: Topology, name: string, command: string, args: string[], options: { env?: Record<string, string | undefined>; asService?: boolean; cwd?: string } = {}): number {
  const out = openSync(path.join(logDir(top), `${name}.log`), 'a');
  const user = options.asService === false ? undefined : serviceUser();
  const child = spawn(command, args, { detached: top.detached, stdio: ['ignore', out, out], env: { ...process.env, ...options.env }, cwd: options.cwd ?? top.dir, ...(user ?? {}) });
  if (top.detached) child.unref();
  if (!child.pid) throw new Error(`${name} did not start (${command})`);
  writeFileSync(path.join(runDir(top), `${name}.pid`), `${child.pid}\n`);
  return child.pid;
}

export function pidOf(top: Topology, name: string): number | null {
  try {
    return Number(readFileSync(path.join(runDir(top), `${name}.pid`), 'utf8').trim());
  } catch {
    return null;
  }
}

export function alive(pid: number | null): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    // A zombie (killed, not yet reaped by a parent that is us) still answers signal 0.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

export async function waitFor<T>(check: () => Promise<T | null | false> | T | null | false, what: string, timeoutMs: number, detail: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | null | false = null;
    try {
      value = await check();
    } catch {
      value = null;
    }
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms. ${detail()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export function tail(top: Topology, name: string, characters = 1500): string {
  try {
    return `${name}.log: ${readFileSync(path.join(logDir(top), `${name}.log`), 'utf8').slice(-characters)}`;
  } catch {
    return '';
  }
}

function patroniConfig(top: Topology, node: number): string {
  const { ports, patroni } = top;
  const name = nodeNames[node];
  // YAML is a superset of JSON: the configuration is written as JSON, no YAML library needed.
  return JSON.stringify({
    scope,
    name,
    log: { level: 'INFO' },
    restapi: { listen: `127.0.0.1:${ports.patroni[node]}`, connect_address: `127.0.0.1:${ports.patroni[node]}` },
    etcd3: { hosts: [`127.0.0.1:${ports.etcdClient}`] },
    bootstrap: {
      dcs: {
        ttl: patroni.ttlSeconds,
        loop_wait: patroni.loopWaitSeconds,
        retry_timeout: patroni.retryTimeoutSeconds,
        maximum_lag_on_failover: 1048576,
        // A commit is acknowledged only once the standby has it; only that standby may be promoted.
        synchronous_mode: true,
        synchronous_mode_strict: false,
        // A crashed primary is not restarted in place: the synchronous standby takes over at once.
        primary_start_timeout: 0,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            wal_level: 'replica', hot_standby: 'on', max_wal_senders: 10, max_replication_slots: 10, wal_keep_size: '256MB',
            max_connections: 200, wal_log_hints: 'on', synchronous_commit: 'on',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, 'data-checksums', { auth: 'trust' }, ...(top.fsync ? [] : ['no-sync'])],
    },
    postgresql: {
      listen: `127.0.0.1:${ports.postgres[node]}`,
      connect_address: `127.0.0.1:${ports.postgres[node]}`,
      data_dir: dataDirOf(top, node),
      bin_dir: pgBin,
      pgpass: path.join(top.dir, `pgpass-${name}`),
      authentication: { superuser: { username: 'postgres' }, replication: { username: 'postgres' }, rewind: { username: 'postgres' } },
      // Loopback only: trust, as the machine's own test cluster. A deployment sets passwords (docs/operations.md).
      pg_hba: ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'],
      parameters: { unix_socket_directories: top.dir, fsync: top.fsync ? 'on' : 'off' },
      // A new standby is cloned at once, not after a spread checkpoint.
      basebackup: [{ checkpoint: 'fast' }],
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  }, null, 2);
}

/** HAProxy's answer when no API process is up: the API's own 503 busy, with Retry-After. */
function unavailableAnswer(): string {
  const body = JSON.stringify({ error: 'busy', error_description: 'No API process answers; try again with the same dedup_id.' });
  return ['HTTP/1.1 503 Service Unavailable', 'content-type: application/json', 'retry-after: 1', 'cache-control: no-store', `content-length: ${Buffer.byteLength(body)}`, 'connection: close', '', body].join('\r\n');
}

function haproxyConfig(top: Topology): string {
  const { ports } = top;
  const postgresServers = (check: string) => nodeNames.map((name, node) => `  server ${name} 127.0.0.1:${ports.postgres[node]} check port ${ports.patroni[node]}`).join('\n') + `\n  option httpchk GET ${check}\n  http-check expect status 200`;
  return `# Written by tools/ha/topology.ts.
global
  maxconn 2000
  pidfile ${path.join(runDir(top), 'haproxy-master.pid')}

defaults
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s

# Read-write: the member whose Patroni answers 200 on /primary (the leader, promoted and writable).
# A member that stops being the primary has its sessions cut at once, so no client writes to it.
listen postgres_primary
  mode tcp
  bind 127.0.0.1:${ports.primary}
  default-server inter 500ms fastinter 250ms fall 2 rise 1 on-marked-down shutdown-sessions
${postgresServers('/primary')}

# Read-only: a streaming standby (stale reads only: reports, history).
listen postgres_replicas
  mode tcp
  bind 127.0.0.1:${ports.replicas}
  default-server inter 1s fall 2 rise 1 on-marked-down shutdown-sessions
${postgresServers('/replica')}

listen api
  mode http
  bind 127.0.0.1:${ports.api}
  timeout client 60s
  timeout server 60s
  timeout tunnel 1h
  # Liveness, not readiness: while the database fails over every process answers 503 busy with
  # Retry-After itself (the spec's body), which tells a client more than no process at all.
  option httpchk GET /healthz
  # No process alive: HAProxy answers the same 503 busy with Retry-After.
  errorfile 503 ${path.join(top.dir, 'haproxy-503.http')}
  # A request cut on its way to a process that died is not retried here: only the client can
  # retry a payment, with its dedup_id. A process that does not answer its check gets no new requests.
  default-server inter 1s fall 2 rise 1
  server api1 127.0.0.1:${ports.apis[0]} check
  server api2 127.0.0.1:${ports.apis[1]} check

listen stats
  mode http
  bind 127.0.0.1:${ports.haproxyStats}
  stats enable
  stats uri /
`;
}

/** GET a Patroni REST endpoint of one node; null when it does not answer. */
export async function patroniGet(top: Topology, node: number, endpoint: string): Promise<{ status: number; body: any } | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${top.ports.patroni[node]}${endpoint}`, { signal: AbortSignal.timeout(2_000) });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch {
    return null;
  }
}

export interface Member {
  name: string;
  role: string;
  state: string;
  lag?: number | string;
  timeline?: number;
}

/** The cluster as any answering Patroni node sees it. */
export async function members(top: Topology): Promise<Member[]> {
  for (let node = 0; node < nodeNames.length; node++) {
    const answer = await patroniGet(top, node, '/cluster');
    if (answer?.status === 200 && Array.isArray(answer.body?.members)) return answer.body.members as Member[];
  }
  return [];
}

/** The index of the node Patroni reports as leader and running, or null. */
export async function primaryNode(top: Topology): Promise<number | null> {
  for (let node = 0; node < nodeNames.length; node++) {
    const answer = await patroniGet(top, node, '/primary');
    if (answer?.status === 200) return node;
  }
  return null;
}

/** The index of a streaming synchronous standby, or null. */
export async function synchronousStandby(top: Topology): Promise<number | null> {
  const list = await members(top);
  const standby = list.find((member) => member.role === 'sync_standby' && ['running', 'streaming'].includes(member.state));
  return standby ? nodeNames.indexOf(standby.name as (typeof nodeNames)[number]) : null;
}

/** The postmaster's pid of a node, from its data directory's postmaster.pid. */
export function postmasterPid(top: Topology, node: number): number | null {
  try {
    return Number(readFileSync(path.join(dataDirOf(top, node), 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

/** psql against a port of the topology (a node's own, or HAProxy's). */
export function psql(port: number, sqlText: string, db = 'postgres'): string {
  const result = spawnSync('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db, '-Atqc', sqlText], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) throw new Error(`psql on ${port}: ${result.stderr}`);
  return result.stdout.trim();
}

export interface ApiOptions {
  /** Extra environment for the API processes (tests: rate limit scale, response checks). */
  env?: Record<string, string>;
  /** The program each API process runs (default the server, api/main.ts). */
  program?: string[];
}

function startApi(top: Topology, index: number, options: ApiOptions): void {
  const program = options.program ?? ['--import', 'tsx', 'api/main.ts'];
  startProcess(top, `api${index + 1}`, process.execPath, program, {
    asService: false,
    cwd: repository,
    env: {
      DATABASE_URL: databaseUrl(top), REDIS_URL: redisUrl(top), PORT: String(top.ports.apis[index]), HOST: '127.0.0.1',
      DATA_DIR: path.join(top.dir, 'api'), CASHLOOP_PUBLIC_URL: apiUrl(top), LOCK_KEY_PREFIX: 'cashloop-ha:', ...options.env,
    },
  });
}

async function apiReady(top: Topology, index: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${top.ports.apis[index]}/readyz`, { signal: AbortSignal.timeout(2_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/**
 * Starts every part and waits for each: etcd; both Patroni nodes (the first to take the leader lock
 * bootstraps the primary, the other clones it and becomes its synchronous standby), HAProxy and
 * Redis; the database once HAProxy reaches the primary; the two API processes (while the standby
 * is still cloning: until it streams, commits do not wait for it). Throws with the failing part's log.
 */
export async function up(top: Topology, options: ApiOptions = {}, log: (line: string) => void = () => {}): Promise<void> {
  for (const directory of [top.dir, runDir(top), logDir(top), path.join(top.dir, 'etcd'), path.join(top.dir, 'redis'), path.join(top.dir, 'api')]) mkdirSync(directory, { recursive: true });
  for (let node = 0; node < nodeNames.length; node++) writeFileSync(path.join(top.dir, `${nodeNames[node]}.yml`), patroniConfig(top, node));
  writeFileSync(path.join(top.dir, 'haproxy.cfg'), haproxyConfig(top));
  writeFileSync(path.join(top.dir, 'haproxy-503.http'), unavailableAnswer());
  chownToService(top.dir);
  const { ports } = top;

  if (!alive(pidOf(top, 'etcd'))) {
    log(`etcd on 127.0.0.1:${ports.etcdClient}`);
    startProcess(top, 'etcd', 'etcd', [
      '--name', 'etcd1', '--data-dir', path.join(top.dir, 'etcd', 'data'),
      '--listen-client-urls', `http://127.0.0.1:${ports.etcdClient}`, '--advertise-client-urls', `http://127.0.0.1:${ports.etcdClient}`,
      '--listen-peer-urls', `http://127.0.0.1:${ports.etcdPeer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${ports.etcdPeer}`,
      '--initial-cluster', `etcd1=http://127.0.0.1:${ports.etcdPeer}`, '--initial-cluster-state', 'new', '--enable-v2=false',
    ]);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${ports.etcdClient}/health`, { signal: AbortSignal.timeout(1_000) })).ok, 'etcd answering', waitMsMax.etcd, () => tail(top, 'etcd'));
  }
  // Both nodes at once: whichever takes the leader lock first bootstraps, the other clones it.
  for (let node = 0; node < nodeNames.length; node++) {
    const name = nodeNames[node];
    if (alive(pidOf(top, name))) continue;
    log(`Patroni ${name}: Postgres on 127.0.0.1:${ports.postgres[node]}, REST on 127.0.0.1:${ports.patroni[node]}`);
    startProcess(top, name, 'patroni', [path.join(top.dir, `${name}.yml`)]);
  }
  if (!alive(pidOf(top, 'haproxy'))) {
    log(`HAProxy: API on 127.0.0.1:${ports.api}, primary on ${ports.primary}, standby reads on ${ports.replicas}, stats on ${ports.haproxyStats}`);
    startProcess(top, 'haproxy', 'haproxy', ['-W', '-db', '-f', path.join(top.dir, 'haproxy.cfg')]);
  }
  if (!alive(pidOf(top, 'redis'))) {
    log(`Redis on 127.0.0.1:${ports.redis}`);
    startProcess(top, 'redis', 'redis-server', ['--port', String(ports.redis), '--bind', '127.0.0.1', '--dir', path.join(top.dir, 'redis'), '--save', '', '--appendonly', 'no']);
  }
  // Through HAProxy, as Cashloop will: the primary's port answers once HAProxy's check passed.
  await waitFor(() => {
    if (psql(ports.primary, `select 1 from pg_database where datname = '${database}'`) === '1') return true;
    psql(ports.primary, `create database ${database}`);
    return true;
  }, 'the primary through HAProxy', waitMsMax.primary, () => [...nodeNames, 'haproxy'].map((name) => tail(top, name)).join('\n'));

  // The processes share one operator key: made here, before both start, so neither races to create it.
  if (!existsSync(operatorKeyFile(top))) writeFileSync(operatorKeyFile(top), `${randomSecret(operatorKeyBytes)}\n`, { mode: 0o600, flag: 'wx' });
  // Both at once: one applies the migrations under the database's start-up lock, the other waits for it.
  for (let index = 0; index < 2; index++) {
    if (alive(pidOf(top, `api${index + 1}`))) continue;
    log(`API process ${index + 1} on 127.0.0.1:${ports.apis[index]}`);
    startApi(top, index, options);
  }
  await waitFor(() => synchronousStandby(top).then((node) => node !== null), 'a synchronous standby streaming', waitMsMax.standby, () => nodeNames.map((name) => tail(top, name)).join('\n'));
  for (let index = 0; index < 2; index++) await waitFor(() => apiReady(top, index), `API process ${index + 1} ready`, waitMsMax.api, () => tail(top, `api${index + 1}`));
  await waitFor(async () => (await fetch(`${apiUrl(top)}/readyz`, { signal: AbortSignal.timeout(2_000) })).ok, 'the API through HAProxy', waitMsMax.haproxy, () => tail(top, 'haproxy'));
}

/**
 * kill -9 of the primary's postmaster; returns the node and pid killed. By default the node's Patroni
 * lives on and hands the leader key to the synchronous standby if that standby answers its REST
 * within 2 s (else it restarts Postgres in place, as Patroni documents for primary_start_timeout 0).
 * With `host`, the node's Patroni is killed first, as when its host is lost: the standby takes the
 * key when the lease (ttl) runs out, whatever the load; `up` starts that Patroni again.
 */
export async function killPrimary(top: Topology, options: { host?: boolean } = {}): Promise<{ node: number; pid: number }> {
  const node = await primaryNode(top);
  if (node === null) throw new Error('no primary to kill: Patroni reports none');
  const pid = postmasterPid(top, node);
  if (!pid || !alive(pid)) throw new Error(`the primary ${nodeNames[node]} has no running postmaster`);
  const patroni = pidOf(top, nodeNames[node]);
  if (options.host && patroni && alive(patroni)) process.kill(patroni, 'SIGKILL');
  process.kill(pid, 'SIGKILL');
  return { node, pid };
}

/** Processes of the topology in stopping order: clients first, the consensus store last. */
const stopOrder = ['api1', 'api2', 'haproxy', 'redis', 'pg2', 'pg1', 'etcd'];

/** Stops what `up` started, by its pid files only; Patroni stops its Postgres itself. */
export async function down(top: Topology, log: (line: string) => void = () => {}): Promise<void> {
  if (!existsSync(runDir(top))) return;
  const names = [...stopOrder, ...readdirSync(runDir(top)).map((file) => file.replace(/\.pid$/, '')).filter((name) => !stopOrder.includes(name) && name !== 'haproxy-master')];
  for (const name of names) {
    const pid = pidOf(top, name);
    if (alive(pid)) {
      log(`stopping ${name} (pid ${pid})`);
      process.kill(pid!, 'SIGTERM');
      await waitFor(() => !alive(pid), `${name} stopping`, waitMsMax.stop).catch(() => {
        if (alive(pid)) process.kill(pid!, 'SIGKILL');
      });
    }
    rmSync(path.join(runDir(top), `${name}.pid`), { force: true });
  }
  // A postmaster whose Patroni was killed outright would be left: stop it by its own pid file.
  for (let node = 0; node < nodeNames.length; node++) {
    const pid = postmasterPid(top, node);
    if (alive(pid)) {
      log(`stopping the postmaster of ${nodeNames[node]} (pid ${pid})`);
      process.kill(pid!, 'SIGQUIT');
    }
  }
}

export interface Status {
  dir: string;
  api: string;
  operatorKeyFile: string;
  processes: { name: string; pid: number | null; alive: boolean }[];
  members: Member[];
}

export async function status(top: Topology): Promise<Status> {
  return {
    dir: top.dir,
    api: apiUrl(top),
    operatorKeyFile: operatorKeyFile(top),
    processes: stopOrder.map((name) => ({ name, pid: pidOf(top, name), alive: alive(pidOf(top, name)) })),
    members: await members(top),
  };
}
