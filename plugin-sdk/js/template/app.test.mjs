// Unit tests of the tool, in plain Node (no wasm): npm test
import test from 'node:test';
import assert from 'node:assert/strict';

import { airlockTool, InvalidParams } from './airlock-tool.js';
import { counts, textStats } from './app.js';

test('counts lines, words and characters', () => {
  assert.deepEqual(counts('one two\nthree\n'), { lines: 2, words: 3, characters: 14 });
  assert.deepEqual(counts('héllo'), { lines: 1, words: 1, characters: 5 });
});

test('the tool returns JSON', () => {
  const out = textStats.call({ text: 'a b c' });
  assert.deepEqual(JSON.parse(out.llmContent[0].val), { lines: 1, words: 3, characters: 5 });
});

test('an empty text is invalid-params', () => {
  assert.throws(() => textStats.call({ text: '   ' }), InvalidParams);
});

test('bad arguments are invalid-params naming the field', () => {
  assert.throws(() => textStats.call({}), /missing field `text`/);
  assert.throws(
    () => airlockTool.execute('{{tool}}', '{"text": 42}'),
    (error) => error.tag === 'invalid-params' && /field `text`: expected string/.test(error.val),
  );
});

test('describe lists the tool', () => {
  const info = airlockTool.describe();
  assert.equal(info.name, '{{name}}');
  assert.deepEqual(info.tools.map((t) => t.name), ['{{tool}}']);
});
