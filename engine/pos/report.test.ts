// The JSON report's rows arrive from Postgres's COPY as lines cut at any byte; commaJoinedLines
// must make of them one comma-separated list, whatever the cuts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commaJoinedLines } from './report.ts';

async function joined(chunks: string[]): Promise<string> {
  async function* source() {
    for (const chunk of chunks) yield Buffer.from(chunk);
  }
  let text = '';
  for await (const part of commaJoinedLines(source())) text += part.toString();
  return text;
}

test('lines become a comma-separated list, the last newline dropped', async () => {
  assert.is(await joined(['{"a":1}\n{"a":2}\n']), '{"a":1},{"a":2}');
});

test('cuts anywhere, empty chunks and a chunk that is only the last newline', async () => {
  const text = '{"a":"x,y"}\n{"b":null}\n{"c":true}\n';
  for (let first = 0; first <= text.length; first++) {
    for (let second = first; second <= text.length; second++) {
      const parts = [text.slice(0, first), '', text.slice(first, second), text.slice(second)];
      assert.is(await joined(parts), '{"a":"x,y"},{"b":null},{"c":true}', `cut at ${first}, ${second}`);
    }
  }
  assert.is(JSON.parse(`[${await joined(['{"a":1}', '\n'])}]`).length, 1);
});

test('no rows: nothing', async () => {
  assert.is(await joined([]), '');
});

test.run();
