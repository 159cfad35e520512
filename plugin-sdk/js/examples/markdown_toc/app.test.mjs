// Unit tests of markdown_toc in plain Node: node --test
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { setHost, airlockTool, InvalidParams, NotFound, PermissionDenied } from '../../airlock-tool.js';
import { nodeHost } from '../../airlock-testing.js';
import { headings, outline, slug, markdownToc } from './app.js';

const DOC = `Intro text
=====

# Getting started

\`\`\`sh
# not a heading
\`\`\`

## Install it! ##
## Install it!
Setup
-----

~~~
## also not
~~~

### Deep \`code\` [link](http://x)
#### Deeper
---
#not-a-heading
`;

test('finds ATX and setext headings, skips fenced code', () => {
  const found = headings(DOC).map((h) => [h.level, h.title, h.line, h.anchor]);
  assert.deepEqual(found, [
    [1, 'Intro text', 1, 'intro-text'],
    [1, 'Getting started', 4, 'getting-started'],
    [2, 'Install it!', 10, 'install-it'],
    [2, 'Install it!', 11, 'install-it-1'],
    [2, 'Setup', 12, 'setup'],
    [3, 'Deep code link', 19, 'deep-code-link'],
    [4, 'Deeper', 20, 'deeper'],
  ]);
});

test('outline indents by level and honours max_depth', () => {
  assert.deepEqual(outline(DOC, 2).slice(0, 3), [
    '- Intro text (line 1) #intro-text',
    '- Getting started (line 4) #getting-started',
    '  - Install it! (line 10) #install-it',
  ]);
  assert.equal(outline(DOC, 6).length, 7);
  assert.equal(outline(DOC, 3).at(-1), '    - Deep code link (line 19) #deep-code-link');
});

test('slugs drop punctuation and keep letters', () => {
  assert.equal(slug('What’s new in v2.0?'), 'whats-new-in-v20');
  assert.equal(slug('Über  uns'), 'über--uns');
});

function workspace() {
  const root = mkdtempSync(join(tmpdir(), 'toc-'));
  writeFileSync(join(root, 'README.md'), DOC);
  writeFileSync(join(root, 'plain.txt'), 'no headings here\n');
  mkdirSync(join(root, 'docs'));
  setHost(nodeHost({ root }));
  return root;
}

test('the tool reads a workspace file', () => {
  workspace();
  const out = markdownToc.call({ file_path: 'README.md' });
  assert.match(out.text, /^Outline of README.md \(6 headings, depth <= 3\):/);
  assert.match(out.text, /\n {2}- Setup \(line 12\) #setup\n/);
});

test('errors: missing file, directory, outside, bad args', () => {
  const root = workspace();
  assert.throws(() => markdownToc.call({ file_path: 'nope.md' }), NotFound);
  assert.throws(() => markdownToc.call({ file_path: 'docs' }), InvalidParams);
  assert.throws(() => markdownToc.call({ file_path: '../etc/passwd' }), PermissionDenied);
  assert.throws(() => markdownToc.call({ file_path: join(root, '..', 'x.md') }), PermissionDenied);
  assert.throws(() => markdownToc.call({ file_path: '' }), InvalidParams);
  assert.throws(() => markdownToc.call({ file_path: 'README.md', max_depth: 9 }), /max_depth`: must be at most 6/);
  assert.throws(() => markdownToc.call({}), /missing field `file_path`/);
  assert.match(markdownToc.call({ file_path: 'plain.txt' }).text, /has no headings up to depth 3/);
});

test('the contract entrypoints', () => {
  workspace();
  const info = airlockTool.describe();
  assert.equal(info.name, 'markdown-toc');
  assert.equal(info.tools[0].kind, 'read');
  assert.deepEqual(info.tools[0].capabilities.files, [{ path: '.', access: 'read' }]);
  assert.equal(airlockTool.describeCall('markdown_toc', '{"file_path":"README.md"}'), 'Outline README.md');
  assert.equal(airlockTool.confirm('markdown_toc', '{"file_path":"README.md"}'), undefined);
  const result = airlockTool.execute('markdown_toc', '{"file_path":"README.md","max_depth":1}');
  assert.equal(result.llmContent[0].tag, 'text');
  assert.throws(() => airlockTool.execute('markdown_toc', '{"file_path": 3}'), (e) => e.tag === 'invalid-params' && /field `file_path`: expected string/.test(e.val));
  assert.throws(() => airlockTool.execute('markdown_toc', '{oops'), (e) => e.tag === 'invalid-params' && /not valid JSON/.test(e.val));
  assert.throws(() => airlockTool.execute('nope', '{}'), (e) => e.tag === 'invalid-params' && /no tool named 'nope'/.test(e.val));
  assert.throws(() => airlockTool.modifyArgs('markdown_toc', '{"file_path":"a"}', ''), (e) => e.tag === 'invalid-params');
  assert.throws(() => airlockTool.execute('markdown_toc', '{"file_path":"gone.md"}'), (e) => e.tag === 'not-found' && /gone.md/.test(e.val));
});

test('regression: anchors stay unique against headings that end in -N (as github-slugger)', () => {
  const anchors = (md) => headings(md).map((h) => h.anchor);
  assert.deepEqual(anchors('# a\n# a\n# a-1\n'), ['a', 'a-1', 'a-1-1']);
  assert.deepEqual(anchors('# a-1\n# a\n# a\n# a\n'), ['a-1', 'a', 'a-2', 'a-3']);
});

test('regression: an ATX closing sequence alone leaves an empty heading', () => {
  assert.deepEqual(headings('### ###\n# #\n## Title ##\n# foo#\n# C# #\n').map((h) => [h.level, h.title]), [
    [3, ''], [1, ''], [2, 'Title'], [1, 'foo#'], [1, 'C#'],
  ]);
});

test('fences: a shorter or other-character fence does not close a block', () => {
  const md = '````\n```\n# in\n~~~~\n````\n# out\n~~~~ js\n```\n~~~\n# in too\n~~~~~\n# out2\n``` a`b\n# not code\n';
  assert.deepEqual(headings(md).map((h) => h.title), ['out', 'out2', 'not code']);
});

test('regression: long hostile heading lines take linear time', () => {
  const lines = ['# a' + ' '.repeat(200000) + '#', '# ' + '['.repeat(100000), '# ' + '[x]('.repeat(50000)];
  for (const line of lines) {
    const start = Date.now();
    assert.equal(headings(line).length, 1);
    assert.ok(Date.now() - start < 1000, `${line.slice(0, 8)}... took ${Date.now() - start} ms`);
  }
});
