// Drives the /authorize pages over plain HTTP (no browser): the form posts with the flow cookie,
// the sandbox code, consent, and the redirect back to the app.
import * as assert from 'uvu/assert';

export interface Page {
  status: number;
  html: string;
  location: string | null;
  cookie: string | null;
  headers: Headers;
}

export async function call(baseUrl: string, method: string, path: string, form?: Record<string, string>, cookie?: string | null, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(new URL(path, baseUrl), {
    method,
    redirect: 'manual',
    headers: { ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(cookie ? { cookie } : {}), ...headers },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const setCookie = response.headers.get('set-cookie');
  return { status: response.status, html: await response.text(), location: response.headers.get('location'), cookie: setCookie ? setCookie.split(';')[0] : null, headers: response.headers };
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]+)"`).exec(html);
  if (!match) throw new Error(`no ${name} in page: ${html}`);
  return match[1];
}

/** Runs the pages (sign in, sandbox code, allow) to the redirect back to the app. */
export async function authorizePages(baseUrl: string, person: { email: string; password: string }, query: Record<string, string>): Promise<URL> {
  const first = await call(baseUrl, 'GET', `/authorize?${new URLSearchParams(query)}`);
  assert.is(first.status, 200, first.html || first.location || '');
  const flow = hidden(first.html, 'flow');
  const signin = await call(baseUrl, 'POST', '/authorize/signin', { flow, login: person.email, password: person.password }, first.cookie);
  const code = /id="revealed-code">(\d+)</.exec(signin.html)?.[1];
  assert.ok(code, signin.html);
  const consent = await call(baseUrl, 'POST', '/authorize/code', { flow, code: code! }, first.cookie);
  assert.ok(consent.html.includes('id="allow"'), consent.html);
  const done = await call(baseUrl, 'POST', '/authorize/consent', { flow, decision: 'allow' }, first.cookie);
  assert.is(done.status, 302);
  return new URL(done.location!);
}

/** Where GET /authorize redirects straight away (a request error sent back to the app). */
export async function authorizeRedirect(baseUrl: string, query: Record<string, string>): Promise<URL> {
  const answer = await call(baseUrl, 'GET', `/authorize?${new URLSearchParams(query)}`);
  assert.is(answer.status, 302, answer.html);
  return new URL(answer.location!);
}
