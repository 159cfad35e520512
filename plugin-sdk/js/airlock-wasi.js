// airlock-wasi.js: the host side of airlock-tool.js inside the component. It imports the
// airlock host interfaces and WASI 0.2 file system, and installs them with setHost. Only the
// entry that build.sh generates imports this module; tests never do (these imports exist
// only inside a component).

import { log } from 'airlock:host/log@0.2.0';
import { emit } from 'airlock:host/output@0.2.0';
import { workspaceRoot, callId } from 'airlock:host/context@0.2.0';
import { spawn as hostSpawn } from 'airlock:host/process@0.2.0';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';
import { handle } from 'wasi:http/outgoing-handler@0.2.12';
import { Fields, OutgoingRequest, OutgoingBody, httpErrorCode } from 'wasi:http/types@0.2.12';
import { setHost, normalize, isWithin } from './airlock-tool.js';

// A WASI failure as `{ code }` (the filesystem `error-code`, 'no-entry', 'access', ...).
function wasiError(error) {
  const code = error && typeof error.payload === 'string' ? error.payload : undefined;
  if (code === undefined) return error;
  const failure = new Error(code);
  failure.code = code;
  return failure;
}

let preopens = null;

// The preopened directories, longest path first: [{ dir, path }].
function dirs() {
  if (preopens === null) {
    preopens = getDirectories()
      .map(([dir, path]) => ({ dir, path: normalize(path) }))
      .sort((a, b) => b.path.length - a.path.length);
  }
  return preopens;
}

// The preopen holding `path` and the path relative to it, or null.
function locate(path) {
  const abs = normalize(path);
  for (const open of dirs()) {
    if (isWithin(abs, open.path)) {
      const rest = abs === open.path ? '.' : abs.slice(open.path === '/' ? 1 : open.path.length + 1);
      return { dir: open.dir, rel: rest };
    }
  }
  return null;
}

function open(path, flags) {
  const found = locate(path);
  if (!found) throw Object.assign(new Error('access'), { code: 'access' });
  try {
    return found.dir.openAt({ symlinkFollow: true }, found.rel, flags, { read: true });
  } catch (error) {
    throw wasiError(error);
  }
}

function statPath(path) {
  const file = open(path, {});
  try {
    const st = file.stat();
    return { type: st.type, size: Number(st.size) };
  } catch (error) {
    throw wasiError(error);
  }
}

function readFile(path) {
  const file = open(path, {});
  try {
    const st = file.stat();
    if (st.type === 'directory') throw Object.assign(new Error('is-directory'), { code: 'is-directory' });
    const chunks = [];
    let total = 0;
    let offset = 0n;
    for (;;) {
      const [bytes, end] = file.read(65536n, offset);
      if (bytes.length > 0) {
        chunks.push(bytes);
        total += bytes.length;
        offset += BigInt(bytes.length);
      }
      if (end || bytes.length === 0) break;
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  } catch (error) {
    throw wasiError(error);
  }
}

function readDir(path) {
  const dir = open(path, { directory: true });
  try {
    const stream = dir.readDirectory();
    const entries = [];
    for (;;) {
      const entry = stream.readDirectoryEntry();
      if (!entry) break;
      entries.push({ name: entry.name, type: entry.type });
    }
    return entries;
  } catch (error) {
    throw wasiError(error);
  }
}

// One request through wasi:http: { method, scheme, authority, pathWithQuery, headers: [[name,
// value]], body: Uint8Array | undefined, maxBody }. A failure throws { code } with the
// wasi:http `error-code` tag ('HTTP-request-denied', 'destination-IP-prohibited', ...).
function httpFailure(code) {
  const tag = code && typeof code.tag === 'string' ? code.tag : String(code);
  return Object.assign(new Error(tag), { code: tag });
}

function http(request) {
  const fields = new Fields();
  const encoder = new TextEncoder();
  for (const [name, value] of request.headers) fields.append(name, encoder.encode(value));
  const outgoing = new OutgoingRequest(fields);
  const method = request.method.toLowerCase();
  const known = ['get', 'head', 'post', 'put', 'delete', 'connect', 'options', 'trace', 'patch'];
  outgoing.setMethod(known.includes(method) ? { tag: method } : { tag: 'other', val: request.method });
  outgoing.setScheme({ tag: request.scheme.toUpperCase() });
  outgoing.setAuthority(request.authority);
  outgoing.setPathWithQuery(request.pathWithQuery);
  const body = outgoing.body();
  let pending;
  try {
    pending = handle(outgoing, undefined);
  } catch (error) {
    throw httpFailure(error && error.payload);
  }
  if (request.body && request.body.length > 0) {
    const stream = body.write();
    for (let at = 0; at < request.body.length; at += 4096) {
      stream.blockingWriteAndFlush(request.body.subarray(at, at + 4096));
    }
  }
  OutgoingBody.finish(body, undefined);
  pending.subscribe().block();
  const outcome = pending.get();
  if (!outcome || outcome.tag !== 'ok') throw httpFailure('the response was lost');
  if (outcome.val.tag !== 'ok') throw httpFailure(outcome.val.val);
  const response = outcome.val.val;
  const decoder = new TextDecoder();
  const headers = response.headers().entries().map(([name, value]) => [name.toLowerCase(), decoder.decode(value)]);
  const incoming = response.consume();
  const stream = incoming.stream();
  const chunks = [];
  let total = 0;
  let truncated = false;
  for (;;) {
    const room = request.maxBody - total;
    if (room <= 0) {
      truncated = true;
      break;
    }
    let chunk;
    try {
      chunk = stream.blockingRead(BigInt(Math.min(room, 65536)));
    } catch (error) {
      const payload = error && error.payload;
      if (payload && payload.tag === 'closed') break;
      const code = payload && payload.tag === 'last-operation-failed' ? httpErrorCode(payload.val) : undefined;
      throw httpFailure(code ?? 'the body could not be read');
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return { status: response.status(), headers, body: concat(chunks), truncated };
}

function concat(chunks) {
  const bytes = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

// Starts a program through airlock:host/process and waits for its end:
// { argv: [...] } or { shell: '...' }, with directory, env ([[name, value]]), stdin, timeoutMs.
// A refusal throws { refused: 'denied' | 'invalid' | 'failed', message }.
function run(options) {
  const command = options.shell !== undefined
    ? { tag: 'shell', val: options.shell }
    : { tag: 'argv', val: options.argv.join('\0') };
  let child;
  try {
    child = hostSpawn({
      command,
      directory: options.directory ?? '',
      env: (options.env ?? []).map(([name, value]) => `${name}=${value}`).join('\0'),
      stdin: options.stdin,
      timeoutMs: BigInt(options.timeoutMs ?? 0),
      background: false,
    });
  } catch (error) {
    const payload = error && error.payload;
    if (payload && typeof payload.tag === 'string') {
      throw Object.assign(new Error(payload.val), { refused: payload.tag, message: payload.val });
    }
    throw error;
  }
  const stdout = [];
  const stderr = [];
  for (;;) {
    const event = child.next(1000);
    if (event.tag === 'stdout') stdout.push(event.val);
    else if (event.tag === 'stderr') stderr.push(event.val);
    else if (event.tag === 'exited') {
      const join = (parts) => new TextDecoder().decode(concat(parts));
      return { code: event.val.code, signal: event.val.signal, timedOut: event.val.timedOut, stdout: join(stdout), stderr: join(stderr) };
    }
  }
}

setHost({
  log: (level, message) => log(level, message),
  emit: (chunk) => emit(chunk),
  workspaceRoot: () => workspaceRoot(),
  callId: () => callId(),
  stat: statPath,
  readFile,
  readDir,
  granted: (path) => locate(path) !== null,
  http,
  run,
});
