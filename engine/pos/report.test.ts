// The JSON report's rows arrive from Postgres's COPY as lines cut at any byte; commaJoinedLines
// must make of them one comma-separated list, whatever the cuts and however they are gathered into writes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commaJoinedLines, gathered } from './report.ts';

async function* source(chunks: readonly string[]) {
  for (const chunk of chunks) yield Buffer.from(chunk);
}

/** The joined text, gathered in pieces of at least `bytesMin` (1: each chunk alone, as before gathering). */
async function joined(chunks: string[], bytesMin = 1): Promise<string> {
  let text = '';
  for await (const part of commaJoinedLines(source(chunks), bytesMin)) text += part.toString();
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
      for (const bytesMin of [1, 5, 64 * 1024]) assert.is(await joined(parts, bytesMin), '{"a":"x,y"},{"b":null},{"c":true}', `cut at ${first}, ${second}, gathered by ${bytesMin}`);
    }
  }
  assert.is(JSON.parse(`[${await joined(['{"a":1}', '\n'])}]`).length, 1);
});

test('no rows: nothing', async () => {
  assert.is(await joined([]), '');
  assert.is(await joined([], 64 * 1024), '');
});

test('gathered: pieces of at least the bound, the last shorter, nothing lost or reordered', async () => {
  const chunks = Array.from({ length: 50 }, (_, index) => `row ${index}\n`);
  const pieces: Buffer[] = [];
  for await (const piece of gathered(source(chunks), 64)) pieces.push(piece);
  assert.is(Buffer.concat(pieces).toString(), chunks.join(''));
  assert.ok(pieces.slice(0, -1).every((piece) => piece.length >= 64));
  assert.ok(pieces.length < chunks.length);
});

test.run();
