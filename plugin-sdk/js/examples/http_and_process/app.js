// http_and_process: the JavaScript kit's example of reaching outside the sandbox, each through
// what the user grants. Build: ../../build.sh . /tmp/http-and-process.wasm    Test: node --test
//
// - http_get GETs a URL through wasi:http (httpGet). It requests http://127.0.0.1:* (any port
//   on this machine's loopback address) so the kit's tests can play the web with a local
//   server; a real tool requests its API's host instead (network: ['https://api.github.com']).
// - run_echo runs `echo` through airlock:host/process (runProcess), asking the user first with
//   an exec confirmation. It requests the command prefix `echo` and read access to the
//   workspace, where the program runs.
//
// Without the grant neither reaches anything: the host's refusal is thrown as PermissionDenied,
// which the model is told.

import {
  definePlugin, defineTool, execConfirmation, ExecutionError, httpGet, runProcess, text, workspaceRoot,
} from '../../airlock-tool.js';

/** Bytes of a body the model is shown. */
const MAX_BODY = 64 * 1024;

export const httpGetTool = defineTool({
  name: 'http_get',
  displayName: 'HttpGet',
  description: 'GETs a URL and returns the status line and the body (at most 64 KiB).',
  kind: 'fetch',
  parameters: {
    type: 'object',
    properties: { url: { type: 'string', description: 'The http:// or https:// URL to GET.' } },
    required: ['url'],
    additionalProperties: false,
  },
  network: ['http://127.0.0.1:*'],
  describeCall: (args) => `GET ${args.url}`,
}, (args) => {
  const response = httpGet(args.url, { maxBody: MAX_BODY });
  const cut = response.truncated ? '\n[body cut at 64 KiB]' : '';
  return text(`HTTP ${response.status}\n\n${response.text()}${cut}`);
});

/** The command line a call runs, as the user is shown it. */
export function echoLine(words) {
  return ['echo', ...words].join(' ');
}

export const runEcho = defineTool({
  name: 'run_echo',
  displayName: 'RunEcho',
  description: 'Runs `echo` with the given words and returns what it printed.',
  kind: 'execute',
  parameters: {
    type: 'object',
    properties: { words: { type: 'array', items: { type: 'string' }, description: 'The words echo prints.' } },
    required: ['words'],
    additionalProperties: false,
  },
  files: [{ path: '.', access: 'read' }],
  processes: ['echo'],
  describeCall: (args) => `Run ${echoLine(args.words)}`,
  confirm: (args) => execConfirmation(echoLine(args.words), 'echo', workspaceRoot(), 'low'),
}, (args) => {
  // An argv, not a shell line: the words are never read as shell syntax.
  const result = runProcess({ argv: ['echo', ...args.words] });
  if (result.code !== 0) throw new ExecutionError(`echo failed (code ${result.code}): ${result.stderr}`);
  return text(result.stdout);
});

definePlugin({ name: 'http-and-process', version: '0.1.0', tools: [httpGetTool, runEcho] });
