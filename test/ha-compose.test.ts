// Proves the `ha` profile of docker-compose.yml hangs together without Docker: its services are all
// in the profile, every dependency and build context exists, HAProxy's servers are its services, the
// Patroni settings match tools/ha/topology.ts's, and its API processes' environment is a configuration
// Cashloop starts with, on the database behind HAProxy.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../engine/config.ts';

const repository = path.resolve(import.meta.dirname, '..');
const compose = parseYaml(readFileSync(path.join(repository, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, any>; volumes: Record<string, unknown> };
const haServices = Object.entries(compose.services).filter(([name]) => /-ha(-\d)?$/.test(name));

test('every ha service is in the ha profile, depends on services that exist and builds from a folder that exists', () => {
  assert.ok(haServices.length >= 8, `ha services: ${haServices.map(([name]) => name).join(', ')}`);
  for (const [name, service] of haServices) {
    assert.equal(service.profiles, ['ha'], `${name} is in the ha profile only`);
    for (const dependency of Object.keys(service.depends_on ?? {})) assert.ok(compose.services[dependency]?.profiles?.includes('ha'), `${name} depends on ${dependency}, an ha service`);
    if (service.build) assert.ok(existsSync(path.join(repository, typeof service.build === 'string' ? service.build : service.build.context, 'Dockerfile')), `${name}'s build context has a Dockerfile`);
    for (const volume of service.volumes ?? []) assert.ok(String(volume).split(':')[0] in compose.volumes, `${name}'s volume ${volume} is declared`);
  }
});

test("HAProxy's servers are the ha profile's services, and the API processes reach the primary through it", () => {
  const haproxy = readFileSync(path.join(repository, 'tools/ha/docker/haproxy.cfg'), 'utf8');
  const servers = [...haproxy.matchAll(/^\s*server (\S+) (\S+):(\d+)/gm)].map((match) => ({ name: match[1], host: match[2] }));
  assert.ok(servers.length >= 4);
  for (const server of servers) assert.ok(compose.services[server.host]?.profiles?.includes('ha'), `HAProxy's server ${server.host} is an ha service`);
  for (const name of ['api-ha-1', 'api-ha-2']) {
    const environment = Object.fromEntries(Object.entries(compose.services[name].environment as Record<string, string>).map(([key, value]) => [key, value.replace(/\$\{(\w+)(:-([^}]*))?\}/g, (_all, variable: string, _default, fallback?: string) => (variable === 'POSTGRES_PASSWORD' ? 'secret' : fallback ?? ''))]));
    const config = loadConfig({ ...environment, PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/data' });
    assert.is(new URL(config.databaseUrl!).hostname, 'haproxy-db-ha', `${name} reaches Postgres through HAProxy`);
    assert.equal(config.redisUrls, ['redis://redis-ha:6379']);
  }
  assert.equal(compose.services['api-ha-2'].depends_on, { 'api-ha-1': { condition: 'service_healthy' } }, 'the second API process starts after the first made the operator key');
});

test("the Patroni settings are the bare machine's: synchronous mode, immediate failover, the same lease", () => {
  const patroni = parseYaml(readFileSync(path.join(repository, 'tools/ha/docker/patroni.yml'), 'utf8'));
  const topology = readFileSync(path.join(repository, 'tools/ha/topology.ts'), 'utf8');
  const dcs = patroni.bootstrap.dcs;
  assert.is(dcs.synchronous_mode, true);
  assert.is(dcs.primary_start_timeout, 0);
  assert.match(topology, /synchronous_mode: true/);
  assert.match(topology, /primary_start_timeout: 0/);
  assert.match(topology, new RegExp(`ttlSeconds: ${dcs.ttl}, loopWaitSeconds: ${dcs.loop_wait}, retryTimeoutSeconds: ${dcs.retry_timeout}`));
});

test.run();
