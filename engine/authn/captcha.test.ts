// Proves the production captcha check asks the siteverify endpoint and passes only a clear success.
import { createServer } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listen } from '../../test/support/harness.ts';
import { createRecaptchaVerifier } from './captcha.ts';

test('only a success answer for our secret and the given response passes', async () => {
  const seen: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      seen.push(form);
      if (form.get('response') === 'broken') {
        response.writeHead(500).end('oops');
        return;
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ success: form.get('secret') === 'the-secret' && form.get('response') === 'solved' }));
    });
  });
  const baseUrl = await listen(server);
  try {
    const verify = createRecaptchaVerifier({ secret: 'the-secret', verifyUrl: `${baseUrl}/siteverify` });
    assert.is(await verify('solved'), true);
    assert.is(await verify('guessed'), false);
    assert.is(await verify('broken'), false);
    assert.is(seen[0].get('secret'), 'the-secret');
    const unreachable = createRecaptchaVerifier({ secret: 'the-secret', verifyUrl: 'http://127.0.0.1:1/siteverify' });
    assert.is(await unreachable('solved'), false);
  } finally {
    server.close();
  }
});

test.run();
