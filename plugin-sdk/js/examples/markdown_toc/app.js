// markdown_toc: the outline of a Markdown file of the workspace, with GitHub-style anchors.
// Build: ../../build.sh . /tmp/markdown_toc.wasm    Test: node --test (in this folder)

import { definePlugin, defineTool, displayPath, log, readText, resolveInWorkspace, text } from '../../airlock-tool.js';

/** One heading: level 1-6, its text, its 1-based line, its anchor. */
function heading(level, raw, line) {
  return { level, title: inlineText(raw), line };
}

// Links and images show their text; code spans their content.
function inlineText(raw) {
  return raw
    .replace(/!?\[([^[\]]*)\]\([^()]*\)/g, '$1') // no [ or ( inside: linear on `[[[[...`
    .replace(/`([^`]*)`/g, '$1')
    .trim();
}

// Punctuation and symbols outside ASCII that GitHub drops: Latin-1 signs, general
// punctuation (’ “ — …), arrows and other symbols, CJK punctuation, full-width forms' signs,
// variation selectors and emoji (astral symbols). StarlingMonkey's regular expressions have no
// Unicode property escapes (\p{L}), hence the explicit ranges.
const DROPPED = /[\u00a0-\u00bf\u00d7\u00f7\u2000-\u206f\u20a0-\u20cf\u2100-\u2bff\u3000-\u303f\ufe00-\ufe0f\ufe30-\ufe4f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\ud800-\udfff]/g;

/** The GitHub anchor of a heading text, before de-duplication. */
export function slug(title) {
  return title
    .toLowerCase()
    .replace(/[\u0000-\u001f!-,./:-@[-^`{-~]/g, '') // ASCII punctuation except - and _
    .replace(DROPPED, '')
    .replace(/ /g, '-');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*))?$/;

// An ATX heading's text without its optional closing sequence: #s after a space or tab (or
// alone: `### ###` is empty). Written without a regular expression, which would backtrack
// quadratically on a long run of spaces.
function atxText(raw) {
  let end = raw.length;
  while (end > 0 && (raw[end - 1] === ' ' || raw[end - 1] === '\t')) end--;
  const text = raw.slice(0, end);
  let start = text.length;
  while (start > 0 && text[start - 1] === '#') start--;
  if (start === text.length) return text;
  if (start === 0) return '';
  return text[start - 1] === ' ' || text[start - 1] === '\t' ? text.slice(0, start) : text;
}
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;

/**
 * The headings of a Markdown text: ATX (`# Title`) and setext (a line underlined with `===`
 * or `---`), skipping fenced code blocks. Every heading gets its anchor; repeated anchors get
 * -1, -2, ... as on GitHub.
 */
export function headings(markdown) {
  const lines = markdown.split(/\r?\n/);
  const found = [];
  let fence = null; // the opening fence while inside a code block
  let paragraph = null; // { text, line } of the paragraph line a setext underline may close
  lines.forEach((line, index) => {
    const number = index + 1;
    if (fence) {
      const close = line.match(FENCE);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length && close[2].trim() === '') fence = null;
      return;
    }
    const open = line.match(FENCE);
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) {
      fence = open[1];
      paragraph = null;
      return;
    }
    const atx = line.match(ATX);
    if (atx) {
      found.push(heading(atx[1].length, atxText(atx[2] ?? ''), number));
      paragraph = null;
      return;
    }
    const setext = line.match(SETEXT);
    if (setext && paragraph) {
      found.push(heading(setext[1][0] === '=' ? 1 : 2, paragraph.text, paragraph.line));
      paragraph = null;
      return;
    }
    const blank = line.trim() === '';
    const rule = /^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$/.test(line);
    const indentedCode = !paragraph && /^( {4}|\t)/.test(line);
    const container = /^ {0,3}([-+*]|\d{1,9}[.)]|>)([ \t]|$)/.test(line); // list item, quote
    if (blank || rule || indentedCode || container) {
      paragraph = null; // nothing a setext underline could turn into a heading
      return;
    }
    // A setext heading's text is its whole paragraph; its line is the paragraph's first.
    paragraph = paragraph ? { text: `${paragraph.text} ${line.trim()}`, line: paragraph.line } : { text: line.trim(), line: number };
  });
  // GitHub's de-duplication (github-slugger): a repeated anchor gets -1, -2, ..., skipping
  // any anchor already taken, also by a heading whose own text ends in -1 (# a, # a, # a-1
  // give a, a-1, a-1-1).
  const seen = new Map();
  for (const h of found) {
    const base = slug(h.title);
    let anchor = base;
    while (seen.has(anchor)) {
      const count = seen.get(base) + 1;
      seen.set(base, count);
      anchor = `${base}-${count}`;
    }
    seen.set(anchor, 0);
    h.anchor = anchor;
  }
  return found;
}

/** The outline lines for headings up to `maxDepth`, indented two spaces per level. */
export function outline(markdown, maxDepth = 3) {
  return headings(markdown)
    .filter((h) => h.level <= maxDepth)
    .map((h) => `${'  '.repeat(h.level - 1)}- ${h.title} (line ${h.line}) #${h.anchor}`);
}

export const markdownToc = defineTool(
  {
    name: 'markdown_toc',
    displayName: 'MarkdownToc',
    description:
      'Returns the outline (table of contents) of a Markdown file in the workspace: one line per ' +
      'heading, indented by level, with its line number and its GitHub anchor (#some-heading). ' +
      'ATX (# Title) and setext (underlined) headings count; headings inside fenced code blocks do not. ' +
      'Use it to find your way in long documents before reading parts of them.',
    kind: 'read',
    files: [{ path: '.', access: 'read' }],
    parameters: {
      type: 'object',
      properties: {
        file_path: {
          type: 'string',
          description: 'The Markdown file, relative to the workspace root (or absolute inside it).',
        },
        max_depth: {
          type: 'integer',
          minimum: 1,
          maximum: 6,
          default: 3,
          description: 'The deepest heading level to list (1-6, default 3).',
        },
      },
      required: ['file_path'],
    },
    describeCall: (args) => `Outline ${args.file_path}`,
  },
  (args) => {
    const path = resolveInWorkspace(args.file_path);
    const markdown = readText(path);
    const all = headings(markdown);
    const lines = outline(markdown, args.max_depth);
    const shown = displayPath(path);
    log.info(`markdown_toc ${shown}: ${all.length} headings, ${lines.length} up to depth ${args.max_depth}`);
    if (lines.length === 0) {
      const deeper = all.length > 0 ? ` (it has ${all.length} deeper headings; raise max_depth)` : '';
      return text(`${shown} has no headings up to depth ${args.max_depth}${deeper}.`);
    }
    return text(`Outline of ${shown} (${lines.length} heading${lines.length === 1 ? '' : 's'}, depth <= ${args.max_depth}):\n${lines.join('\n')}`);
  },
);

definePlugin({ name: 'markdown-toc', version: '0.1.0', tools: [markdownToc] });
