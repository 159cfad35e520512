// Unit tests of the helper layer in plain Node: node --test test/
import test from 'node:test';
import assert from 'node:assert/strict';

import {
  airlockTool, defineTool, definePlugin, editConfirmation, fsError, json, normalize, parseArgs, resolveIn,
  setHost, text, ExecutionError, InvalidParams, NotFound, PermissionDenied,
} from '../airlock-tool.js';
import { nodeHost } from '../airlock-testing.js';

const logs = [];
setHost(nodeHost({ root: '/ws/proj', granted: ['/ws/proj/src'], logs }));

const probe = defineTool(
  {
    name: 'probe', displayName: 'Probe', description: 'Probes.', kind: 'think',
    parameters: {
      type: 'object',
      properties: {
        file_path: { type: 'string' },
        start_line: { type: 'integer', minimum: 1, default: 1 },
        mode: { enum: ['a', 'b'] },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['file_path'],
    },
    validate(args) {
      if (args.file_path === 'bad') throw new InvalidParams('bad path');
    },
  },
  (args) => {
    if (args.file_path === 'crash') throw new TypeError('x is undefined');
    if (args.file_path === 'obj') return { start: args.start_line };
    return `ok ${args.start_line}`;
  },
);
const edit = defineTool(
  { name: 'edit_probe', kind: 'edit', parallelSafe: false, files: [{ path: 'src', access: 'read-write' }],
    confirm: (args) => editConfirmation('/ws/proj/a', null, args.content),
    modifyArgs: (args, proposed) => ({ ...args, content: proposed }) },
  () => text('done').withMarkdown('**done**'),
);
definePlugin({ name: 'probes', version: '1.2.3', tools: [probe, edit] });

test('paths are normalised and kept inside the workspace', () => {
  assert.equal(normalize('/a/./b/../c/'), '/a/c');
  assert.equal(normalize('/..'), '/');
  assert.equal(resolveIn('/ws/proj', 'src/./main.js'), '/ws/proj/src/main.js');
  assert.equal(resolveIn('/ws/proj', '.'), '/ws/proj');
  assert.equal(resolveIn('/ws/proj/', '/ws/proj/x/../y'), '/ws/proj/y');
  for (const path of ['../other', '/etc/passwd', '/ws/project', 'src/../../x', '/']) {
    assert.throws(() => resolveIn('/ws/proj', path), PermissionDenied, path);
  }
  assert.throws(() => resolveIn('/ws/proj', ' '), InvalidParams);
});

test('arguments: defaults, named fields, bad JSON', () => {
  assert.deepEqual(parseArgs(probe, '{"file_path":"a"}'), { file_path: 'a', start_line: 1 });
  assert.deepEqual(parseArgs(probe, ' {"file_path":"a","start_line":4} '), { file_path: 'a', start_line: 4 });
  const message = (args) => { try { parseArgs(probe, args); } catch (e) { return e.message; } return 'no error'; };
  assert.match(message('{}'), /^invalid arguments for probe: missing field `file_path`\. Call the tool again/);
  assert.match(message('{"file_path":1}'), /field `file_path`: expected string, got integer 1/);
  assert.match(message('{"file_path":"a","start_line":1.5}'), /field `start_line`: expected integer, got number/);
  assert.match(message('{"file_path":"a","start_line":0}'), /field `start_line`: must be at least 1/);
  assert.match(message('{"file_path":"a","mode":"c"}'), /field `mode`: must be one of "a", "b"/);
  assert.match(message('{"file_path":"a","tags":["x",2]}'), /field `tags\[1\]`: expected string/);
  assert.match(message('[1]'), /must be a JSON object, got array/);
  assert.match(message('{"file_path":"a"} x'), /not valid JSON/);
  assert.deepEqual(parseArgs(edit, ''), {});
});

test('regressions: hostile arguments', () => {
  const message = (args) => { try { parseArgs(probe, args); } catch (e) { return e.message; } return 'no error'; };
  // Inherited names are not arguments: a schema requiring `constructor` or `toString`.
  const inherited = defineTool({ name: 'inherited', kind: 'think', parameters: {
    type: 'object', properties: { toString: { type: 'string', default: 'd' } }, required: ['constructor'] } }, () => 'x');
  assert.throws(() => parseArgs(inherited, '{}'), /missing field `constructor`/);
  assert.deepEqual(parseArgs(inherited, '{"constructor":1}'), { constructor: 1, toString: 'd' });
  // A huge mistyped value is not echoed whole.
  const long = message(JSON.stringify({ file_path: 'x'.repeat(100000), start_line: 'y'.repeat(100000) }));
  assert.match(long, /field `start_line`: expected integer, got string "yyy+\.\.\./);
  assert.ok(long.length < 400, long.length);
  // A NUL in a path is bad arguments, not an execution error.
  assert.throws(() => resolveIn('/ws/proj', 'src/a\0.md'), InvalidParams);
  // Deep nesting is bad JSON or a type error, never a crash.
  assert.match(message(`{"file_path":"a","tags":${'['.repeat(100000)}${']'.repeat(100000)}}`), /invalid arguments/);
});

test('describe lists every tool with its capabilities', () => {
  const info = airlockTool.describe();
  assert.equal(info.name, 'probes');
  assert.equal(info.version, '1.2.3');
  assert.deepEqual(info.tools.map((t) => [t.name, t.kind, t.parallelSafe]), [['probe', 'think', true], ['edit_probe', 'edit', false]]);
  assert.deepEqual(info.tools[1].capabilities, { files: [{ path: 'src', access: 'read-write' }], network: [], env: [], processes: [] });
  assert.equal(JSON.parse(info.tools[0].parameters).required[0], 'file_path');
});

test('dispatch, results and errors as the contract wants them', () => {
  assert.deepEqual(airlockTool.execute('probe', '{"file_path":"a"}'), { llmContent: [{ tag: 'text', val: 'ok 1' }], display: undefined });
  assert.deepEqual(airlockTool.execute('probe', '{"file_path":"obj"}').llmContent, [{ tag: 'json', val: '{"start":1}' }]);
  assert.deepEqual(airlockTool.execute('edit_probe', '{}').display, { tag: 'markdown', val: '**done**' });
  assert.throws(() => airlockTool.execute('probe', '{"file_path":"bad"}'), { tag: 'invalid-params', val: 'bad path' });
  assert.throws(() => airlockTool.validate('probe', '{"file_path":"bad"}'), { tag: 'invalid-params', val: 'bad path' });
  assert.equal(airlockTool.validate('probe', '{"file_path":"ok"}'), undefined);
  assert.throws(() => airlockTool.execute('probe', '{"file_path":"crash"}'), { tag: 'execution', val: 'TypeError: x is undefined' });
  assert.ok(logs.some((l) => l.level === 'error' && l.message.includes('x is undefined')));
  assert.throws(() => airlockTool.execute('nope', '{}'), (e) => e.tag === 'invalid-params' && /its tools are: probe, edit_probe/.test(e.val));
  assert.equal(airlockTool.describeCall('probe', 'garbage'), 'Probe');
  assert.equal(airlockTool.describeCall('nope', '{}'), 'nope');
  assert.equal(airlockTool.confirm('probe', '{"file_path":"a"}'), undefined);
  assert.deepEqual(airlockTool.confirm('edit_probe', '{"content":"x"}'), {
    tag: 'edit', val: { path: '/ws/proj/a', original: '', proposed: 'x', isNewFile: true },
  });
  assert.equal(airlockTool.modifyArgs('edit_probe', '{"content":"x"}', 'y'), '{"content":"y"}');
  assert.throws(() => airlockTool.modifyArgs('probe', '{"file_path":"a"}', 'y'), (e) => e.tag === 'invalid-params' && /no editable proposal/.test(e.val));
});

test('file errors say what to do', () => {
  assert.ok(fsError('/ws/proj/src/a.md', { code: 'no-entry' }) instanceof NotFound);
  assert.match(fsError('/ws/proj/src/a.md', { code: 'no-entry' }).message, /'src\/a.md' does not exist/);
  assert.ok(fsError('/ws/proj/README.md', { code: 'no-entry' }) instanceof PermissionDenied); // not granted
  assert.match(fsError('/ws/proj/src/a', { code: 'access' }).message, /not been granted/);
  assert.ok(fsError('/ws/proj/src', { code: 'is-directory' }) instanceof InvalidParams);
  assert.ok(fsError('/ws/proj/src/a', { code: 'io' }) instanceof ExecutionError);
  assert.deepEqual(json([1]).llmContent, [{ tag: 'json', val: '[1]' }]);
});
