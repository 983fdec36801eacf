/**
 * The deepest nesting of arrays and objects that JSON text may have. JSON.parse takes any depth,
 * but JSON.stringify (every answer, the board view, the live feed) overflows the stack at a few
 * thousand levels; pydantic refuses past about 200 as well.
 */
export const MAX_JSON_DEPTH = 200;

/**
 * Where JSON text first nests deeper than `max` arrays and objects (brackets inside strings do
 * not count), or -1 when it never does. Linear in the text, and allocates nothing.
 */
export function tooDeepAt(text: string, max = MAX_JSON_DEPTH): number {
  if (text.length <= max) return -1;
  // Text with no more than `max` opening brackets cannot nest deeper: counted with indexOf
  // (native), this spares the character loop for every ordinary body.
  if (openingsAtMost(text, max)) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return -1;
}

/** Whether `text` has at most `max` `[` and `{` together (inside strings too). */
function openingsAtMost(text: string, max: number): boolean {
  let n = 0;
  for (const bracket of ['{', '[']) {
    let at = text.indexOf(bracket);
    while (at >= 0) {
      n += 1;
      if (n > max) return false;
      at = text.indexOf(bracket, at + 1);
    }
  }
  return true;
}
