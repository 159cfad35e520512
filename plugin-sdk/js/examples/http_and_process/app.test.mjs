// Unit tests of http_and_process in plain Node: node --test. Node has no airlock host, so the
// tests install one whose wasi:http and process functions answer as the real host does.
import test from 'node:test';
import assert from 'node:assert/strict';

import { setHost, airlockTool } from '../../airlock-tool.js';
import { echoLine } from './app.js';

function call(tool, args) {
  try {
    return { ok: airlockTool.execute(tool, JSON.stringify(args)) };
  } catch (error) {
    return { err: error };
  }
}

test('a granted GET returns the status and the body', () => {
  const seen = [];
  setHost({
    http: (request) => {
      seen.push(request);
      return { status: 200, headers: [['content-type', 'text/plain']], body: new TextEncoder().encode('hello'), truncated: false };
    },
  });
  const { ok } = call('http_get', { url: 'http://127.0.0.1:8080/hello?x=1#frag' });
  assert.deepEqual(ok.llmContent, [{ tag: 'text', val: 'HTTP 200\n\nhello' }]);
  assert.equal(seen[0].scheme, 'http');
  assert.equal(seen[0].authority, '127.0.0.1:8080');
  assert.equal(seen[0].pathWithQuery, '/hello?x=1');
});

test('a refused GET is permission-denied, a bad URL invalid-params', () => {
  setHost({ http: () => { throw Object.assign(new Error('denied'), { code: 'HTTP-request-denied' }); } });
  const { err } = call('http_get', { url: 'https://api.example.com/' });
  assert.equal(err.tag, 'permission-denied');
  assert.match(err.val, /no network grant/);
  assert.equal(call('http_get', { url: 'ftp://example.com/' }).err.tag, 'invalid-params');
});

test('run_echo runs echo by argv and passes a refusal on', () => {
  const seen = [];
  setHost({
    workspaceRoot: () => '/ws',
    run: (options) => {
      seen.push(options);
      return { code: 0, stdout: `${options.argv.slice(1).join(' ')}\n`, stderr: '' };
    },
  });
  assert.deepEqual(call('run_echo', { words: ['a', 'b c'] }).ok.llmContent, [{ tag: 'text', val: 'a b c\n' }]);
  assert.deepEqual(seen[0].argv, ['echo', 'a', 'b c']);
  assert.equal(echoLine(['x', 'y']), 'echo x y');
  setHost({ run: () => { throw Object.assign(new Error('not granted'), { refused: 'denied', message: 'echo is not granted' }); } });
  const { err } = call('run_echo', { words: ['x'] });
  assert.equal(err.tag, 'permission-denied');
  assert.equal(err.val, 'echo is not granted');
});
