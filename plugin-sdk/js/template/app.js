// {{name}}: an airlock tool plugin. The tool `{{tool}}` counts the lines, words and characters
// of a text. Change it into your own: a tool is a function plus its schema.
//
// Build: npm install && npm run build   (makes {{name}}.wasm)     Test: npm test

import { definePlugin, defineTool, json, InvalidParams } from './airlock-tool.js';

// Reaching the network or running a program: httpGet(url) (request the host with
// network: ['https://api.example.com']) and runProcess({ argv: ['git', '--version'] }) (request
// processes: ['git']), both from airlock-tool.js; a refusal is thrown as PermissionDenied for
// the model. Both are shown in the kit's examples/http_and_process.

/** The counts for `text` (what the tool computes; unit-tested without wasm). */
export function counts(text) {
  const words = text.split(/\s+/).filter((word) => word !== '');
  return {
    lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
    words: words.length,
    characters: [...text].length,
  };
}

export const textStats = defineTool(
  {
    name: '{{tool}}',
    displayName: 'TextStats',
    description:
      'Counts the lines, words and characters of a text and returns them as JSON ' +
      '({"lines": n, "words": n, "characters": n}).',
    kind: 'think', // touches nothing; a tool reading files says 'read' and asks for files
    // files: [{ path: '.', access: 'read' }],   // read the workspace (see the kit's README)
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The text to count.' },
      },
      required: ['text'],
    },
    // Checks the schema cannot express; a thrown InvalidParams goes back to the model.
    validate(args) {
      if (args.text.trim() === '') throw new InvalidParams('`text` is empty; give the text to count');
    },
    describeCall: (args) => `Count ${[...args.text].length} characters`,
  },
  (args) => json(counts(args.text)),
);

definePlugin({ name: '{{name}}', version: '0.1.0', tools: [textStats] });
