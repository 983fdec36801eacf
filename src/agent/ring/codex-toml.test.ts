import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  isBellNotify,
  scanTopLevel,
  stringArray,
  tomlString,
  withNotify,
  withoutNotify,
} from './codex-toml.js';

const ARGV = [
  '/usr/bin/node',
  "/home/me/it's/panoptes-agent.mjs",
  'bell',
  '--bell-file',
  '/home/me/.config/panoptes/bell.json',
  '--codex',
];
const LINE = `notify = ["/usr/bin/node", "/home/me/it's/panoptes-agent.mjs", "bell", "--bell-file", "/home/me/.config/panoptes/bell.json", "--codex"]\n`;

const CONFIG = `# my Codex
model = "o3"
approval_policy = "on-request"   # ask first
tools = [
  [1, 2],   # a nested array starting a line
  "x]",
]
prompt = """
[not a table]
notify = ["inside", "a string"]
"""

[projects."/home/me/panoptes"]
trust_level = "trusted"
notify = ["a", "table's own"]
`;

/** Python's tomllib, where there is one: the file must stay TOML, notify at the top level. */
function tomllib(text: string): Record<string, unknown> | null {
  const py = spawnSync(
    'python3',
    ['-c', 'import json,sys,tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'],
    { input: text, encoding: 'utf8' },
  );
  if (py.error !== undefined || /No module named/.test(py.stderr)) return null;
  if (py.status !== 0) throw new Error(py.stderr);
  return JSON.parse(py.stdout) as Record<string, unknown>;
}

describe("Codex's config.toml", () => {
  it('scans the top level: keys, multi-line values, and where the first table is', () => {
    const top = scanTopLevel(CONFIG);
    expect(top.entries.map((e) => e.key)).toEqual(['model', 'approval_policy', 'tools', 'prompt']);
    expect(top.entries[1]?.value).toBe('"on-request"');
    expect(CONFIG.slice(top.firstTable ?? 0)).toMatch(/^\[projects\./);
  });

  it('inserts notify after the last top-level key, before the first table; nothing else changes', () => {
    const edit = withNotify(CONFIG, ARGV, false);
    expect(edit.before).toEqual({ kind: 'none' });
    const at = CONFIG.indexOf('\n[projects');
    expect(edit.text).toBe(`${CONFIG.slice(0, at)}${LINE}${CONFIG.slice(at)}`);
    // Installing again changes nothing; taking it out gives the file back byte for byte.
    expect(withNotify(edit.text, ARGV, false).text).toBe(edit.text);
    expect(withoutNotify(edit.text)).toEqual({ text: CONFIG, removed: true, other: false });
    const parsed = tomllib(edit.text);
    if (parsed !== null) {
      expect(parsed.notify).toEqual(ARGV);
      expect(
        (parsed.projects as Record<string, { notify: string[] }>)['/home/me/panoptes']?.notify,
      ).toEqual(['a', "table's own"]);
      expect(parsed.model).toBe('o3');
    }
  });

  it('a file with no top-level key gets notify first; an empty one gets notify alone', () => {
    expect(withNotify('[a]\nb = 1\n', ARGV, false).text).toBe(`${LINE}[a]\nb = 1\n`);
    expect(withNotify('', ARGV, false).text).toBe(LINE);
    expect(withNotify('model = "o3"', ARGV, false).text).toBe(`model = "o3"\n${LINE}`);
  });

  it("replaces its own notify in place, another program's only with force", () => {
    const own = `model = "o3"\nnotify = [\n  "node", "/old/panoptes-agent.mjs",\n  "bell", "--codex",\n]\n[t]\n`;
    expect(withNotify(own, ARGV, false)).toEqual({
      text: `model = "o3"\n${LINE}[t]\n`,
      before: { kind: 'bell' },
    });
    const other = `notify = ["notify-send", "Codex"] # desktop\nmodel = "o3"\n`;
    expect(withNotify(other, ARGV, false)).toEqual({
      text: other,
      before: { kind: 'other', value: '["notify-send", "Codex"]' },
    });
    expect(withNotify(other, ARGV, true).text).toBe(`${LINE}model = "o3"\n`);
    expect(withoutNotify(other)).toEqual({ text: other, removed: false, other: true });
  });

  it('reads string arrays with escapes and comments, and knows its own notify', () => {
    expect(stringArray(`[ "a\\"b", 'c\\d', # x\n "\\u00e9" , ]`)).toEqual(['a"b', 'c\\d', 'é']);
    expect(stringArray('["a", 1]')).toBeNull();
    expect(stringArray('"a"')).toBeNull();
    expect(tomlString('q"\\\n')).toBe('"q\\"\\\\\\u000a"');
    expect(stringArray(`[${tomlString('q"\\\n')}]`)).toEqual(['q"\\\n']);
    expect(isBellNotify(ARGV)).toBe(true);
    expect(isBellNotify(['/usr/local/bin/panoptes-agent-linux-arm64', 'bell', '--codex'])).toBe(
      true,
    );
    expect(isBellNotify(['notify-send', 'bell', '--codex'])).toBe(false);
    expect(isBellNotify(null)).toBe(false);
  });

  it('refuses what it cannot read safely', () => {
    expect(() => scanTopLevel('a = "open\n')).toThrow(/line 1: a string that does not end/);
    expect(() => scanTopLevel('a = [1,\n')).toThrow(/does not end/);
    expect(() => scanTopLevel('just words\n')).toThrow(/neither a key = value/);
    expect(() => withNotify('notify = []\nnotify = []\n', ARGV, true)).toThrow(/twice/);
  });
});
