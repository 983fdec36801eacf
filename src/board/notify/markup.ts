/**
 * Text that came from machines (names, sessions, bells, reasons, paths) goes into chat messages
 * whose services read markup. Each channel kind names one Escape that makes such text inert in
 * its service; render.ts applies it to every value it puts into a line, never to the board's or
 * the operator's own words (docs/notify.md: how machine text is escaped per channel).
 */
export type Escape = (machineText: string) => string;

/** CR, LF and the other characters some reader takes as a new line (VT, FF, NEL, U+2028/9). */
const LINE_BREAK = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/g;

/** Machine text kept on its line: each line break shown as ⏎, for every kind. */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAK, '⏎');
}

/**
 * A machine's name in the board's link (`?q=`): all but letters, digits, `.` and `-`
 * percent-encoded, so the link holds nothing any service reads as markup and is kept as is.
 */
export function linkPart(name: string): string {
  return encodeURIComponent(name).replace(
    /[!'()*~_]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** For services that show the text as it is (no markup). */
export const asIs: Escape = (text) => text;

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** `&`, `<` and `>` as entities: Slack's control characters, and HTML's. */
export function escapeEntities(text: string): string {
  return text.replace(/[&<>]/g, (c) => ENTITIES[c] ?? c);
}

/** `@` at the start of a word gets a zero-width space after it: `@everyone` mentions nobody. */
export function muteMentions(text: string): string {
  return text.replace(/(?<![\p{L}\p{N}_])@/gu, '@\u200b');
}

/**
 * A backslash before each Markdown marker (CommonMark's escape, which Discord, Mattermost and
 * Teams honour): emphasis, code, spoilers, tables, links, headings; and before a list item's
 * marker at the start, where a template may put the value at the start of a line. `angles`:
 * `<` and `>` too, for services where they are not escaped as HTML apart.
 */
export function escapeMarkdown(text: string, angles = true): string {
  return text
    .replace(angles ? /[\\`*_~|[\]#<>]/g : /[\\`*_~|[\]#]/g, '\\$&')
    .replace(/^[-+]/, '\\$&')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

/**
 * For a format with no escape: a zero-width space (U+200B) after each match of `chars` (a
 * global pattern), so that what it starts (`<users/all>`, `[label](url)`) is no longer read.
 */
export function zeroWidthAfter(text: string, chars: RegExp): string {
  return text.replace(chars, '$&\u200b');
}

/** A *, _, ~ or ` that is not inside a word, where it can open or close a style. */
const STYLE_MARKER = /(?<![\p{L}\p{N}])[*_~`]|[*_~`](?![\p{L}\p{N}])/gu;

/**
 * For a format with no escape: a zero-width space on each side of a style marker (`*` `_` `~`
 * `` ` ``) that is not inside a word, so that it cannot pair; `db_primary` stays as it is.
 */
export function unpairStyleMarkers(text: string): string {
  return text.replace(STYLE_MARKER, '\u200b$&\u200b');
}

/** Markdown chat services (Discord, Mattermost): markers behind backslashes, mentions muted. */
export const markdownChat: Escape = (text) => muteMentions(escapeMarkdown(text));
