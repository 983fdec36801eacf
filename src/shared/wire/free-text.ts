/**
 * Characters free text may not carry: C0 controls (NUL, ESC, CR, …), DEL and C1 controls, the
 * bidi overrides and isolates of "Trojan Source" (U+202A–U+202E, U+2066–U+2069) and the line and
 * paragraph separators. Escape sequences reach terminals that tail logs, CR fakes lines in
 * plain-text messages, a bidi override makes a text read as something it is not.
 * Tab is allowed everywhere; line feed only in multi-line text (a bell's text).
 * No dependency: the browser UI cleans what it shows with the same rule.
 */
const UNSAFE_COMMON =
  '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';

/** Pattern of one line of free text (a silence reason, a bell's session): no LF either. */
export const ONE_LINE_PATTERN = `^[^${UNSAFE_COMMON}\\u000a]*$`;
/** Pattern of several lines of free text (a bell's text): LF and tab, no other control. */
export const LINES_PATTERN = `^[^${UNSAFE_COMMON}]*$`;

const ONE_LINE_UNSAFE = new RegExp(`[${UNSAFE_COMMON}\\u000a]`, 'gu');
const LINES_UNSAFE = new RegExp(`[${UNSAFE_COMMON}]`, 'gu');

/**
 * Text the board did not take through a schema (a journal detail quoting a client or a
 * machine's answer, a session in a polled overview) with every unsafe character replaced by
 * U+FFFD, so that it cannot be refused but shows that something was there.
 */
export function safeText(text: string, lines = false): string {
  const unsafe = lines ? LINES_UNSAFE : ONE_LINE_UNSAFE;
  unsafe.lastIndex = 0;
  return unsafe.test(text) ? text.replace(unsafe, '\ufffd') : text;
}
