import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkDestination, checkUrl, guardedLookup, isPublicAddress } from './destination.ts';

const guarded = { guarded: true };
const resolvesTo = (...addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

test('public unicast addresses pass; loopback, private, link-local, CGNAT, unique-local, mapped and reserved do not', () => {
  for (const address of ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '8.8.8.8']) assert.ok(isPublicAddress(address), address);
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fc00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '224.0.0.1', '255.255.255.255', 'not-an-ip']) {
    assert.not.ok(isPublicAddress(address), address);
  }
});

test('every IPv6 form is judged by the IPv4 address it embeds (issue 25 finding 7)', async () => {
  const loopbackForms = [
    '::7f00:1', '::127.0.0.1', '::ffff:7f00:1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '64:ff9b:1::a00:1', '2002:7f00:1::1', '2002:a00:1::',
    '2001:0:7f00:1::1', '2001:0:4136:e378:8000:63bf:80ff:fffe', '2607:f8b0::200:5efe:7f00:1', '2607:f8b0::5efe:a9fe:a9fe', '::a9fe:a9fe', '::', '::1',
  ];
  for (const address of loopbackForms) assert.not.ok(isPublicAddress(address), address);
  for (const address of ['::ffff:8.8.8.8', '2607:f8b0::200:5efe:808:808']) assert.ok(isPublicAddress(address), address);
  for (const url of ['https://[::7f00:1]/x', 'https://[::ffff:0:a00:1]/x', 'https://[2002:7f00:1::1]/x']) assert.not.ok((await checkDestination(url, guarded)).ok, url);
  assert.not.ok(checkUrl('https://[::7f00:1]/x', guarded).ok, 'a literal address is judged before each delivery too');
  assert.not.ok((await checkDestination('https://sneaky.example/x', guarded, resolvesTo('::7f00:1'))).ok, 'a DNS answer in IPv4-compatible form');
});

test('sandbox accepts any http(s) URL; every policy refuses other schemes, credentials and non-URLs', async () => {
  assert.ok((await checkDestination('http://127.0.0.1:9000/hook', { guarded: false })).ok);
  for (const bad of ['ftp://example.com/x', 'not a url', 'https://user:pass@example.com/x', 'javascript:alert(1)']) {
    assert.not.ok((await checkDestination(bad, { guarded: false })).ok, bad);
  }
});

test('production refuses http, literal private addresses and names that resolve to any private address', async () => {
  assert.equal(await checkDestination('http://example.com/x', guarded, resolvesTo('93.184.215.14')), { ok: false, reason: 'must be https in production' });
  for (const url of ['https://127.0.0.1/x', 'https://[::1]/x', 'https://10.0.0.5/x', 'https://169.254.169.254/latest/meta-data']) {
    const answer = await checkDestination(url, guarded);
    assert.not.ok(answer.ok, url);
  }
  assert.not.ok((await checkDestination('https://rebind.example/x', guarded, resolvesTo('93.184.215.14', '10.0.0.1'))).ok);
  assert.not.ok((await checkDestination('https://nowhere.example/x', guarded, async () => { throw new Error('ENOTFOUND'); })).ok);
  assert.ok((await checkDestination('https://hooks.example/x', guarded, resolvesTo('93.184.215.14'))).ok);
  assert.ok((await checkDestination('https://93.184.215.14/x', guarded)).ok);
});

test('the delivery lookup refuses a name that resolves to loopback', async () => {
  const outcome = await new Promise<{ error: NodeJS.ErrnoException | null }>((resolve) => guardedLookup('localhost', {}, (error) => resolve({ error })));
  assert.is(outcome.error?.code, 'EWEBHOOKDESTINATION');
});

test.run();
