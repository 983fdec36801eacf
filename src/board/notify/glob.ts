/** A machine-name glob: `*` any run of characters, `?` one; case-insensitive like names. */
export function compileGlob(glob: string): RegExp {
  const source = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'i');
}
