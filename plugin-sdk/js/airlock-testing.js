// airlock-testing.js: run tools in plain Node for unit tests (`node --test`), no wasm.
//
//   import { nodeHost } from './airlock-testing.js';
//   import { setHost } from './airlock-tool.js';
//   const logs = [];
//   setHost(nodeHost({ root: '/tmp/some-workspace', logs }));
//   const out = myTool.call({ file_path: 'README.md' });   // a ToolOutput, or throws a ToolError
//
// Files are read with node:fs; `root` is the workspace root. `granted` (default: [root]) lists
// the folders the tool may see, like the preopens of a grant: paths outside them fail with
// PermissionDenied as they would in airlock.

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { normalize, isWithin } from './airlock-tool.js';

const CODES = {
  ENOENT: 'no-entry',
  EACCES: 'access',
  EPERM: 'not-permitted',
  EISDIR: 'is-directory',
  ENOTDIR: 'not-directory',
  EROFS: 'read-only',
};

function fsCall(action) {
  try {
    return action();
  } catch (error) {
    const code = CODES[error.code];
    if (!code) throw error;
    throw Object.assign(new Error(code), { code });
  }
}

function typeOf(st) {
  if (st.isDirectory()) return 'directory';
  if (st.isFile()) return 'regular-file';
  if (st.isSymbolicLink()) return 'symbolic-link';
  return 'unknown';
}

/** A host for airlock-tool.js backed by node:fs, with `root` as the workspace root. */
export function nodeHost({ root, granted = [root], logs = [], output = [], id = 'test-call' }) {
  const visible = granted.map((dir) => normalize(dir));
  return {
    log: (level, message) => logs.push({ level, message }),
    emit: (chunk) => output.push(chunk),
    workspaceRoot: () => root,
    callId: () => id,
    granted: (path) => visible.some((dir) => isWithin(normalize(path), dir)),
    stat: (path) =>
      fsCall(() => {
        const st = statSync(path);
        return { type: typeOf(st), size: st.size };
      }),
    readFile: (path) => fsCall(() => new Uint8Array(readFileSync(path))),
    readDir: (path) =>
      fsCall(() =>
        readdirSync(path, { withFileTypes: true }).map((entry) => ({
          name: entry.name,
          type: entry.isDirectory() ? 'directory' : entry.isFile() ? 'regular-file' : 'unknown',
        })),
      ),
  };
}
