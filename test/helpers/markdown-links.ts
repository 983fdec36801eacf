import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Markdown text with its code (fenced blocks, and inline code spans of any backtick run) blanked
 * out, lines kept: link syntax shown as code is not a link.
 */
export function withoutCode(markdown: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  let fence: string | null = null;
  const lines = markdown.split('\n').map((line) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) {
        fence = null;
      }
      return blank(line);
    }
    if (opener !== undefined) {
      fence = opener;
      return blank(line);
    }
    return line;
  });
  // A span opens with a run of backticks and closes with a run of the same length (CommonMark).
  return lines.join('\n').replace(/(`+)(?!`)[\s\S]*?(?<!`)\1(?!`)/g, blank);
}

/** The relative links of a document (in `file`, under `root`) that name no existing file. */
export function brokenLinks(root: string, file: string, markdown: string): string[] {
  return [...withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target) && !target.startsWith('#'))
    .filter((target) => !existsSync(join(root, dirname(file), target.split('#')[0] ?? '')))
    .map((target) => `${file}: ${target}`);
}
