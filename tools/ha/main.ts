// `npm run ha -- up | down | status | kill-primary | kill-primary-host | install`: the high-availability topology of
// docs/operations.md on this machine, from Debian packages, on loopback ports (base
// CASHLOOP_HA_PORT_BASE, default 17000), with its data in CASHLOOP_HA_DIR (default
// $TMPDIR/cashloop-ha), never in the repository.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiUrl, databaseUrl, down, installPackages, killPrimary, nodeNames, operatorKeyFile, primaryNode, redisUrl, replicaUrl, status, topology, up, waitFor } from './topology.ts';

const usage = 'usage: npm run ha -- up | down | status | kill-primary | kill-primary-host | install';
const [command] = process.argv.slice(2);
const base = Number(process.env.CASHLOOP_HA_PORT_BASE ?? 17000);
const dir = process.env.CASHLOOP_HA_DIR ?? path.join(tmpdir(), 'cashloop-ha');
const top = topology(dir, base);
const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  if (command === 'up') {
    const problem = installPackages(say);
    if (problem) {
      process.stderr.write(`${problem}\n`);
      return 1;
    }
    await up(top, {}, say);
    say('');
    say(`Cashloop (two API processes behind HAProxy): ${apiUrl(top)}`);
    say(`operator key: ${operatorKeyFile(top)}`);
    say(`DATABASE_URL (HAProxy, always the primary): ${databaseUrl(top)}`);
    say(`standby, stale reads only: ${replicaUrl(top)}`);
    say(`REDIS_URL: ${redisUrl(top)}`);
    say(`data, logs and pid files: ${top.dir}   stop with: npm run ha -- down`);
    return 0;
  }
  if (command === 'install') {
    const problem = installPackages(say);
    if (problem) process.stderr.write(`${problem}\n`);
    else say('the Debian packages of the topology are installed');
    return problem ? 1 : 0;
  }
  if (command === 'down') {
    await down(top, say);
    say(`stopped; data left in ${top.dir}`);
    return 0;
  }
  if (command === 'status') {
    const state = await status(top);
    say(`API ${state.api}   operator key ${state.operatorKeyFile}   data ${state.dir}`);
    for (const process of state.processes) say(`${process.name.padEnd(8)} ${process.alive ? `running (pid ${process.pid})` : 'stopped'}`);
    for (const member of state.members) say(`postgres ${member.name}: ${member.role}, ${member.state}, timeline ${member.timeline ?? '?'}, lag ${member.lag ?? 0}`);
    if (state.members.length === 0) say('postgres: no Patroni node answers');
    return 0;
  }
  if (command === 'kill-primary' || command === 'kill-primary-host') {
    const host = command === 'kill-primary-host';
    const killed = await killPrimary(top, { host });
    const startedAt = Date.now();
    say(`kill -9 of ${host ? 'Patroni and ' : ''}the postmaster of ${nodeNames[killed.node]} (pid ${killed.pid})`);
    const promoted = await waitFor(async () => {
      const node = await primaryNode(top);
      return node !== null && node !== killed.node ? node + 1 : null;
    }, 'a new primary', 60_000);
    say(`${nodeNames[promoted - 1]} is the primary after ${((Date.now() - startedAt) / 1000).toFixed(1)} s; ${nodeNames[killed.node]} rejoins as a standby${host ? ' once `npm run ha -- up` starts its Patroni again' : ''}`);
    return 0;
  }
  process.stderr.write(`${usage}\n`);
  return 2;
}

process.exitCode = await main();
