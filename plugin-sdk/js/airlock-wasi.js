// airlock-wasi.js: the host side of airlock-tool.js inside the component. It imports the
// airlock host interfaces and WASI 0.2 file system, and installs them with setHost. Only the
// entry that build.sh generates imports this module; tests never do (these imports exist
// only inside a component).

import { log } from 'airlock:host/log@0.2.0';
import { emit } from 'airlock:host/output@0.2.0';
import { workspaceRoot, callId } from 'airlock:host/context@0.2.0';
import { getDirectories } from 'wasi:filesystem/preopens@0.2.12';
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

setHost({
  log: (level, message) => log(level, message),
  emit: (chunk) => emit(chunk),
  workspaceRoot: () => workspaceRoot(),
  callId: () => callId(),
  stat: statPath,
  readFile,
  readDir,
  granted: (path) => locate(path) !== null,
});
