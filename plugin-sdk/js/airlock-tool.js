// airlock-tool.js: write airlock tools in JavaScript. A tool is a function plus its schema.
//
//   import { definePlugin, defineTool, text, InvalidParams } from './airlock-tool.js';
//
//   const hello = defineTool({
//     name: 'hello', displayName: 'Hello', description: 'Greets someone.', kind: 'think',
//     parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
//   }, (args) => text(`Hello, ${args.name}!`));
//
//   definePlugin({ name: 'hello', version: '0.1.0', tools: [hello] });
//
// This module implements the `airlock:tool/tool@0.2.0` interface around such tools
// (`airlockTool`, exported as `tool` by the entry that build.sh generates). It imports
// nothing from the host, so it (and a tool module that uses it) loads in plain Node for unit
// tests: the host's functions arrive through `setHost`, which `airlock-wasi.js` calls inside
// the component and `airlock-testing.js` (`nodeHost`) calls in tests.

// ---------------------------------------------------------------------------------------
// Errors

/** A failure told to the model; `tag` is the contract's `tool-error` case. */
export class ToolError extends Error {
  constructor(tag, message) {
    super(message);
    this.name = 'ToolError';
    this.tag = tag;
  }
}
/** The arguments are wrong. */
export class InvalidParams extends ToolError {
  constructor(message) { super('invalid-params', message); this.name = 'InvalidParams'; }
}
/** Something the call refers to does not exist. */
export class NotFound extends ToolError {
  constructor(message) { super('not-found', message); this.name = 'NotFound'; }
}
/** The call needs something it may not touch (outside the workspace, not granted). */
export class PermissionDenied extends ToolError {
  constructor(message) { super('permission-denied', message); this.name = 'PermissionDenied'; }
}
/** The call ran out of time. */
export class Timeout extends ToolError {
  constructor(message) { super('timeout', message); this.name = 'Timeout'; }
}
/** The call ran and failed. */
export class ExecutionError extends ToolError {
  constructor(message) { super('execution', message); this.name = 'ExecutionError'; }
}
/** The call was cancelled. */
export class Cancelled extends ToolError {
  constructor(message) { super('cancelled', message); this.name = 'Cancelled'; }
}

// ---------------------------------------------------------------------------------------
// The host (injected)

function noHost(what) {
  return () => {
    throw new ExecutionError(`${what} is not available: no host installed (tests: call setHost(nodeHost(...)))`);
  };
}

const defaultHost = {
  log: () => {},
  emit: () => {},
  workspaceRoot: noHost('the workspace root'),
  callId: () => '',
  // File access: each throws an object with a WASI `code` ('no-entry', 'access', ...) on failure.
  stat: noHost('the file system'),
  readFile: noHost('the file system'),
  readDir: noHost('the file system'),
  // Whether the instance can see `path` at all (a preopen holds it); undefined: unknown.
  granted: () => undefined,
  // One wasi:http request (see httpRequest); throws { code } with the wasi:http error code.
  http: noHost('wasi:http'),
  // Runs a program through airlock:host/process (see runProcess); throws { refused, message }.
  run: noHost('airlock:host/process'),
};

let host = defaultHost;

/** Installs the host functions (done by airlock-wasi.js in the component, by tests in Node). */
export function setHost(impl) {
  host = { ...defaultHost, ...impl };
}

// ---------------------------------------------------------------------------------------
// HTTP and programs

/** Bytes of a response body httpRequest reads unless given `maxBody`. */
export const DEFAULT_MAX_BODY = 8 << 20;

// What a wasi:http error code means, for the model.
function httpError(url, code) {
  switch (code) {
    case 'HTTP-request-denied':
      return new PermissionDenied(`${url}: the request was denied: no network grant allows this destination`);
    case 'destination-IP-prohibited':
      return new PermissionDenied(
        `${url}: the host is at an address that is not public (loopback, private, link-local), which is reached only when the user's grant names that address`,
      );
    case 'DNS-error':
    case 'destination-not-found':
      return new ExecutionError(`${url}: the host name could not be resolved`);
    case 'connection-refused':
      return new ExecutionError(`${url}: the connection was refused`);
    default:
      return new ExecutionError(`${url}: the request failed (${code})`);
  }
}

/**
 * Sends one request through the host's `wasi:http` and reads the response:
 * `httpRequest({ url, method = 'GET', headers = {}, body, maxBody })` →
 * `{ status, headers: { name: value }, body: Uint8Array, text(), truncated }`.
 * The host sends it only to a destination the tool requests (`network: ['https://api.example.com']`)
 * and the user granted; otherwise it throws `PermissionDenied`, which the model is told.
 * Redirects are returned as they are, never followed.
 */
export function httpRequest({ url, method = 'GET', headers = {}, body, maxBody = DEFAULT_MAX_BODY }) {
  const match = /^(https?):\/\/([^/?#@\s]+)([^#]*)/i.exec(String(url ?? ''));
  if (!match) throw new InvalidParams(`${safeJson(url)} is not an http:// or https:// URL with a host`);
  const tail = match[3] === '' ? '/' : match[3].startsWith('/') ? match[3] : `/${match[3]}`;
  const encoded = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  let response;
  try {
    response = host.http({
      method,
      scheme: match[1].toLowerCase(),
      authority: match[2],
      pathWithQuery: tail,
      headers: Object.entries(headers).map(([name, value]) => [name, String(value)]),
      body: encoded,
      maxBody,
    });
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw httpError(url, error && error.code ? error.code : String(error));
  }
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: response.body,
    truncated: response.truncated,
    text() {
      return new TextDecoder().decode(response.body);
    },
  };
}

/** `httpRequest({ url })`: a GET. */
export function httpGet(url, options = {}) {
  return httpRequest({ ...options, url, method: 'GET' });
}

/**
 * Runs a program through `airlock:host/process` (contract 0.2.0) and waits for its end:
 * `runProcess({ argv: ['git', '--version'] })` or `runProcess({ shell: 'git status | head' })`,
 * with `directory` (default: the workspace root), `env` ({ NAME: value }, only variables the
 * tool was granted), `stdin` (bytes or text) and `timeoutMs` →
 * `{ code, signal, timedOut, stdout, stderr }` (text). The host starts only what the tool
 * requests (`processes: ['git']`) and the user granted; a refusal throws `PermissionDenied`
 * (or `InvalidParams`, `ExecutionError`) with the host's reason.
 */
export function runProcess({ argv, shell, directory = '', env = {}, stdin, timeoutMs = 0 }) {
  if ((argv === undefined) === (shell === undefined)) throw new InvalidParams('runProcess: give argv or shell');
  try {
    return host.run({
      argv,
      shell,
      directory,
      env: Object.entries(env),
      stdin: typeof stdin === 'string' ? new TextEncoder().encode(stdin) : stdin,
      timeoutMs,
    });
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (error && error.refused === 'denied') throw new PermissionDenied(error.message);
    if (error && error.refused === 'invalid') throw new InvalidParams(error.message);
    if (error && error.refused === 'failed') throw new ExecutionError(error.message);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Logging and live output

function logAt(level) {
  return (...parts) => {
    try {
      host.log(level, parts.map((p) => (typeof p === 'string' ? p : safeJson(p))).join(' '));
    } catch {
      // Logging never fails a call.
    }
  };
}

/** Lines for the host's log (never the terminal): `log.info('read', path)`. */
export const log = {
  trace: logAt('trace'),
  debug: logAt('debug'),
  info: logAt('info'),
  warn: logAt('warn'),
  error: logAt('error'),
};

/** Sends live output to the UI (shown only for tools with `streamsOutput: true`). */
export function emit(chunk) {
  host.emit(String(chunk));
}

/** The id of the current call, for log lines. */
export function callId() {
  return host.callId();
}

// ---------------------------------------------------------------------------------------
// Results

/** The result of a successful call (build it with `text` or `json`). */
export class ToolOutput {
  constructor(parts, display) {
    this.llmContent = parts;
    this.display = display;
  }
  /** Shows the user `markdown` instead of a summary of what the model is told. */
  withMarkdown(markdown) {
    this.display = { tag: 'markdown', val: String(markdown) };
    return this;
  }
  /** Shows the user a diff of a file change (`path` absolute). */
  withDiff(path, original, proposed) {
    this.display = { tag: 'diff', val: { path, original, proposed } };
    return this;
  }
  /** The text parts joined (handy in tests). */
  get text() {
    return this.llmContent.map((part) => part.val).join('\n');
  }
}

/** A result that tells the model `value` as text. */
export function text(value) {
  return new ToolOutput([{ tag: 'text', val: String(value) }]);
}

/** A result that tells the model `value` as JSON. */
export function json(value) {
  return new ToolOutput([{ tag: 'json', val: JSON.stringify(value) }]);
}

/** An `edit` confirmation: `original` null/undefined means a new file. */
export function editConfirmation(path, original, proposed) {
  return {
    tag: 'edit',
    val: { path, original: original ?? '', proposed, isNewFile: original == null },
  };
}

/** An `exec` confirmation: the command line, its program, the folder and the risk ('low', 'medium', 'high'). */
export function execConfirmation(command, rootCommand, directory = '', risk = 'medium') {
  return { tag: 'exec', val: { command, rootCommand, directory, risk } };
}

/** An `info` confirmation: what the user is asked, and the URLs the call will reach. */
export function infoConfirmation(prompt, urls = []) {
  return { tag: 'info', val: { prompt, urls } };
}

// ---------------------------------------------------------------------------------------
// Paths

/** Removes `.` and resolves `..` lexically; `..` never climbs above `/`. */
export function normalize(path) {
  const absolute = path.startsWith('/');
  const out = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
    } else {
      out.push(part);
    }
  }
  const joined = out.join('/');
  if (absolute) return '/' + joined;
  return joined === '' ? '.' : joined;
}

/** Whether `path` is `dir` or lies below it (both normalised absolute paths). */
export function isWithin(path, dir) {
  if (dir === '/') return path.startsWith('/');
  return path === dir || path.startsWith(dir + '/');
}

/** The workspace root, as a normalised absolute path. */
export function workspaceRoot() {
  return normalize(host.workspaceRoot());
}

/** `resolveInWorkspace` against an explicit root. */
export function resolveIn(root, path) {
  if (typeof path !== 'string' || path.trim() === '') {
    throw new InvalidParams(
      'the path is empty; give a path relative to the workspace root or an absolute path inside it',
    );
  }
  if (path.includes('\0')) {
    throw new InvalidParams('the path contains a NUL character; give a plain file path');
  }
  const base = normalize(root);
  const resolved = normalize(path.startsWith('/') ? path : `${base}/${path}`);
  if (!isWithin(resolved, base)) {
    throw new PermissionDenied(`path '${path}' is outside the workspace ${base}; use a path inside it`);
  }
  return resolved;
}

/**
 * Resolves a path from the model (absolute, or relative to the workspace root) to an absolute
 * path with `.` and `..` removed. Empty: InvalidParams; outside the workspace: PermissionDenied.
 */
export function resolveInWorkspace(path) {
  return resolveIn(workspaceRoot(), path);
}

/** `path` relative to the workspace root for messages (`src/a.md`), `.` for the root. */
export function displayPath(path) {
  const root = workspaceRoot();
  if (path === root) return '.';
  if (isWithin(path, root)) return path.slice(root === '/' ? 1 : root.length + 1);
  return path;
}

// ---------------------------------------------------------------------------------------
// Files (absolute paths, normally from resolveInWorkspace)

function notGranted(path) {
  return new PermissionDenied(
    `cannot access '${displayPath(path)}': this tool has not been granted access to it (or only read access); ` +
      'the user can grant it with `airlock plugins grant`',
  );
}

/** Turns a file-system failure on `path` into a ToolError whose message says what to do. */
export function fsError(path, error) {
  if (error instanceof ToolError) return error;
  const code = error && (error.code ?? error.payload);
  const shown = displayPath(path);
  switch (code) {
    case 'no-entry':
      if (host.granted(path) === false) return notGranted(path);
      return new NotFound(`'${shown}' does not exist; check the path (list the folder to find it)`);
    case 'access':
    case 'not-permitted':
    case 'read-only':
      return notGranted(path);
    case 'is-directory':
      return new InvalidParams(`'${shown}' is a directory, not a file`);
    case 'not-directory':
      return new InvalidParams(`'${shown}' or one of its parents is not a directory`);
    case 'illegal-byte-sequence':
      return new InvalidParams(`'${shown}' is not a valid path`);
    default:
      return new ExecutionError(`cannot access '${shown}': ${code ?? (error && error.message) ?? error}`);
  }
}

function guard(path, action) {
  if (host.granted(path) === false) throw notGranted(path);
  try {
    return action();
  } catch (error) {
    throw fsError(path, error);
  }
}

/** `{ type: 'directory' | 'regular-file' | 'symbolic-link' | ..., size }`, or null when missing. */
export function stat(path) {
  try {
    return guard(path, () => host.stat(path));
  } catch (error) {
    if (error instanceof NotFound) return null;
    throw error;
  }
}

/** The bytes of a file (Uint8Array). Missing: NotFound; a directory: InvalidParams. */
export function readBytes(path) {
  return guard(path, () => host.readFile(path));
}

/** The content of a UTF-8 text file. Missing: NotFound; a directory or not UTF-8: InvalidParams. */
export function readText(path) {
  const bytes = readBytes(path);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InvalidParams(`'${displayPath(path)}' is not a UTF-8 text file`);
  }
}

/** Like readText, but null when the file does not exist. */
export function readTextOptional(path) {
  try {
    return readText(path);
  } catch (error) {
    if (error instanceof NotFound) return null;
    throw error;
  }
}

/** The entries of a directory: `[{ name, type }]`, sorted by name. */
export function readDir(path) {
  return guard(path, () => host.readDir(path)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

// ---------------------------------------------------------------------------------------
// Arguments: a small JSON Schema check (type, enum, required, minimum/maximum,
// minLength/maxLength, minItems/maxItems, items, properties) and defaults.

function safeJson(value) {
  try {
    return JSON.stringify(value);
  } catch {
    // Too deep for JSON.stringify (a RangeError), a BigInt, a cycle: String() may throw too.
    try {
      return String(value);
    } catch {
      return `[${typeOf(value)}]`;
    }
  }
}

// A value for an error message, at most 80 characters (the model may send megabytes).
function shortJson(value) {
  const shown = safeJson(value) ?? String(value);
  return shown.length <= 80 ? shown : `${shown.slice(0, 77)}...`;
}

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(value, type) {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
}

function checkValue(value, schema, where) {
  if (!schema || typeof schema !== 'object') return value;
  const at = where ? `field \`${where}\`` : 'the arguments';
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => typeMatches(value, type))) {
      throw new InvalidParams(`${at}: expected ${types.join(' or ')}, got ${typeOf(value)} ${shortJson(value)}`);
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => option === value)) {
    throw new InvalidParams(`${at}: must be one of ${schema.enum.map(safeJson).join(', ')}, got ${shortJson(value)}`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) {
      throw new InvalidParams(`${at}: must be at least ${schema.minimum}, got ${value}`);
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      throw new InvalidParams(`${at}: must be at most ${schema.maximum}, got ${value}`);
    }
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      throw new InvalidParams(`${at}: must have at least ${schema.minLength} characters`);
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      throw new InvalidParams(`${at}: must have at most ${schema.maxLength} characters`);
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      throw new InvalidParams(`${at}: must have at least ${schema.minItems} items`);
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems) {
      throw new InvalidParams(`${at}: must have at most ${schema.maxItems} items`);
    }
    if (schema.items) return value.map((item, i) => checkValue(item, schema.items, `${where}[${i}]`));
  }
  if (typeOf(value) === 'object' && (schema.properties || schema.required)) {
    const out = { ...value };
    // Own properties only: `toString` or `constructor` must not count as present.
    const has = (name) => Object.prototype.hasOwnProperty.call(out, name) && out[name] !== undefined;
    for (const name of schema.required ?? []) {
      if (!has(name)) {
        throw new InvalidParams(`missing field \`${where ? `${where}.${name}` : name}\``);
      }
    }
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      const path = where ? `${where}.${name}` : name;
      if (!has(name)) {
        if (sub && sub.default !== undefined) out[name] = structuredCloneSafe(sub.default);
        continue;
      }
      out[name] = checkValue(out[name], sub, path);
    }
    return out;
  }
  return value;
}

function structuredCloneSafe(value) {
  return value === null || typeof value !== 'object' ? value : JSON.parse(JSON.stringify(value));
}

/**
 * Parses the model's JSON arguments for `spec` and checks them against its schema; fills in
 * schema defaults. Failures are InvalidParams naming the field.
 */
export function parseArgs(spec, argsJson) {
  const prefix = `invalid arguments for ${spec.name}: `;
  const suffix = '. Call the tool again with arguments that match its schema.';
  let value;
  try {
    value = JSON.parse(typeof argsJson === 'string' && argsJson.trim() !== '' ? argsJson : '{}');
  } catch (error) {
    throw new InvalidParams(`${prefix}the arguments are not valid JSON (${error.message})${suffix}`);
  }
  if (typeOf(value) !== 'object') {
    throw new InvalidParams(`${prefix}the arguments must be a JSON object, got ${typeOf(value)}${suffix}`);
  }
  try {
    return checkValue(value, spec.parameters, '');
  } catch (error) {
    if (error instanceof InvalidParams) throw new InvalidParams(prefix + error.message + suffix);
    if (error instanceof RangeError) throw new InvalidParams(`${prefix}the arguments nest too deeply${suffix}`);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------
// Tools and the plugin

const KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'fetch', 'think', 'other'];
const TOOL_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const PLUGIN_NAME = /^[a-z][a-z0-9_-]{0,62}$/;

/**
 * Defines a tool: `spec` is its description, `run(args)` its body. `run` returns a string
 * (text), a ToolOutput (`text(...)`, `json(...)`) or any other value (sent as JSON), and
 * throws a ToolError (InvalidParams, NotFound, ...) to fail.
 *
 * spec: name, displayName, description, kind ('read', 'search', 'edit', ...), parameters (a
 * JSON Schema object, `{type: 'object', ...}`), and optionally files (`[{path: '.', access:
 * 'read'}]`, access 'read' or 'read-write'), network, env, processes (string lists),
 * parallelSafe (default true), streamsOutput (default false), and the hooks validate(args),
 * describeCall(args) -> string, confirm(args) -> confirmation or null,
 * modifyArgs(args, proposed) -> new args object.
 *
 * Returns the spec with `run`, and `call(args)` (runs validate and run on an args object,
 * for tests).
 */
export function defineTool(spec, run) {
  if (!spec || !TOOL_NAME.test(spec.name ?? '')) {
    throw new Error(`defineTool: the name must match ${TOOL_NAME}, got ${safeJson(spec && spec.name)}`);
  }
  if (!KINDS.includes(spec.kind)) {
    throw new Error(`defineTool ${spec.name}: kind must be one of ${KINDS.join(', ')}`);
  }
  if (typeof run !== 'function') throw new Error(`defineTool ${spec.name}: the second argument is the tool's function`);
  const parameters = spec.parameters ?? { type: 'object', properties: {} };
  if (parameters.type !== 'object') throw new Error(`defineTool ${spec.name}: parameters must be {type: 'object', ...}`);
  const def = {
    displayName: spec.name,
    description: '',
    parallelSafe: true,
    streamsOutput: false,
    files: [],
    network: [],
    env: [],
    processes: [],
    ...spec,
    parameters,
    run,
  };
  def.call = (args) => {
    const parsed = parseArgs(def, JSON.stringify(args ?? {}));
    if (def.validate) def.validate(parsed);
    return toOutput(def.run(parsed));
  };
  return def;
}

let plugin = null;

/** Declares the plugin: `{ name, version, tools: [...] }`. Call it once, in app.js. */
export function definePlugin({ name, version = '0.1.0', tools }) {
  if (!PLUGIN_NAME.test(name ?? '')) throw new Error(`definePlugin: the name must match ${PLUGIN_NAME}`);
  if (!Array.isArray(tools) || tools.length === 0) throw new Error('definePlugin: give at least one tool');
  const names = new Set();
  for (const t of tools) {
    if (!t || typeof t.run !== 'function') throw new Error('definePlugin: tools must come from defineTool');
    if (names.has(t.name)) throw new Error(`definePlugin: two tools are named ${t.name}`);
    names.add(t.name);
  }
  plugin = { name, version, tools };
  return plugin;
}

function toOutput(result) {
  if (result instanceof ToolOutput) return result;
  if (typeof result === 'string') return text(result);
  return json(result === undefined ? null : result);
}

function info(t) {
  return {
    name: t.name,
    displayName: t.displayName,
    description: t.description,
    parameters: JSON.stringify(t.parameters),
    kind: t.kind,
    streamsOutput: Boolean(t.streamsOutput),
    parallelSafe: Boolean(t.parallelSafe),
    capabilities: {
      files: t.files.map((f) => ({ path: f.path, access: f.access ?? 'read' })),
      network: [...t.network],
      env: [...t.env],
      processes: [...t.processes],
    },
  };
}

function find(name) {
  if (!plugin) throw new ExecutionError('the plugin declares no tools (app.js must call definePlugin)');
  const found = plugin.tools.find((t) => t.name === name);
  if (!found) {
    const known = plugin.tools.map((t) => t.name).join(', ');
    throw new InvalidParams(`this plugin has no tool named '${name}'; its tools are: ${known}`);
  }
  return found;
}

/** A thrown value as the contract's `tool-error` variant. */
export function toToolError(error) {
  if (error instanceof ToolError) return { tag: error.tag, val: error.message };
  if (error instanceof Error) {
    return { tag: 'execution', val: `${error.name}: ${error.message}` };
  }
  return { tag: 'execution', val: String(error) };
}

// Runs `body`; a thrown value is re-thrown as the `tool-error` variant (componentize-js turns a
// throw from a `result`-returning export into its `err`). Non-ToolErrors are logged too.
function guarded(body) {
  try {
    return body();
  } catch (error) {
    if (!(error instanceof ToolError)) log.error('uncaught:', error && error.stack ? error.stack : String(error));
    throw toToolError(error);
  }
}

function checked(t, argsJson) {
  const args = parseArgs(t, argsJson);
  if (t.validate) t.validate(args);
  return args;
}

/** The `airlock:tool/tool@0.2.0` interface (build.sh exports it as `tool`). */
export const airlockTool = {
  describe() {
    if (!plugin) throw new Error('app.js must call definePlugin({ name, version, tools })');
    return { name: plugin.name, version: plugin.version, tools: plugin.tools.map(info) };
  },
  validate(name, argsJson) {
    guarded(() => {
      checked(find(name), argsJson);
    });
  },
  describeCall(name, argsJson) {
    try {
      const t = find(name);
      let args;
      try {
        args = parseArgs(t, argsJson);
      } catch {
        return t.displayName;
      }
      return t.describeCall ? String(t.describeCall(args)) : t.displayName;
    } catch {
      return name;
    }
  },
  confirm(name, argsJson) {
    return guarded(() => {
      const t = find(name);
      const args = checked(t, argsJson);
      const confirmation = t.confirm ? t.confirm(args) : undefined;
      return confirmation ?? undefined;
    });
  },
  modifyArgs(name, argsJson, proposed) {
    return guarded(() => {
      const t = find(name);
      if (!t.modifyArgs) {
        throw new InvalidParams(`${name} has no editable proposal; call it again with new arguments instead`);
      }
      return JSON.stringify(t.modifyArgs(parseArgs(t, argsJson), proposed));
    });
  },
  execute(name, argsJson) {
    return guarded(() => {
      const t = find(name);
      const output = toOutput(t.run(checked(t, argsJson)));
      return { llmContent: output.llmContent, display: output.display };
    });
  },
};
