import { describe, expect, it } from 'vitest';
import {
  isBellHookCommand,
  parseSettings,
  settingsText,
  withBellHooks,
  withoutBellHooks,
} from './claude-settings.js';

const COMMAND =
  "/usr/bin/node '/home/me/my tools/panoptes-agent.mjs' bell --hook --bell-file /home/me/.config/panoptes/bell.json";

const EXISTING = {
  model: 'opus',
  permissions: { allow: ['Bash(npm test)'] },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }],
    Notification: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send Claude' }] }],
  },
};

describe("Claude Code's settings", () => {
  it('adds one Notification and one Stop hook, keeping every other key and hook', () => {
    const next = withBellHooks(EXISTING, COMMAND);
    expect(next).toEqual({
      model: 'opus',
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: EXISTING.hooks.PreToolUse,
        Notification: [
          ...EXISTING.hooks.Notification,
          { matcher: '', hooks: [{ type: 'command', command: COMMAND }] },
        ],
        Stop: [{ hooks: [{ type: 'command', command: COMMAND }] }],
      },
    });
    // Again: the same object back, so nothing is written.
    expect(withBellHooks(next, COMMAND)).toBe(next);
    // From another place (the agent file moved): replaced, still one of each.
    const moved = withBellHooks(next, COMMAND.replace('my tools', 'bin'));
    expect(moved.hooks).toMatchObject({
      Stop: [{ hooks: [{ command: expect.stringContaining('/bin/') }] }],
    });
    expect((moved.hooks as { Notification: unknown[] }).Notification).toHaveLength(2);
  });

  it('takes out only its own hooks, and groups and events it leaves empty', () => {
    const installed = withBellHooks(EXISTING, COMMAND);
    expect(withoutBellHooks(installed)).toEqual(EXISTING);
    expect(withoutBellHooks(EXISTING)).toBe(EXISTING);
    // A group shared with another hook keeps the other one.
    const shared = {
      hooks: {
        Stop: [
          {
            hooks: [
              { type: 'command', command: 'say done' },
              { type: 'command', command: COMMAND },
            ],
          },
        ],
      },
    };
    expect(withoutBellHooks(shared)).toEqual({
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] },
    });
    expect(withoutBellHooks(withBellHooks({}, COMMAND))).toEqual({});
  });

  it('knows its own commands, and no one else’s', () => {
    expect(isBellHookCommand(COMMAND)).toBe(true);
    expect(isBellHookCommand('/usr/local/bin/panoptes-agent-linux-x64 bell --hook')).toBe(true);
    expect(isBellHookCommand('node /opt/panoptes/dist/agent/cli.js bell --hook')).toBe(true);
    expect(isBellHookCommand('node /opt/panoptes/dist/agent/bell.js --hook')).toBe(false);
    expect(isBellHookCommand('bell --hook')).toBe(false);
    expect(isBellHookCommand('notify-send bell --hook')).toBe(false);
    expect(isBellHookCommand(42)).toBe(false);
  });

  it('reads a missing or empty file as {}, and refuses what is not settings', () => {
    expect(parseSettings(null, 'f')).toEqual({});
    expect(parseSettings(' \n', 'f')).toEqual({});
    expect(() => parseSettings('{"a":', 'f')).toThrow(/^f is not JSON/);
    expect(() => parseSettings('[]', 'f')).toThrow(/not a JSON object/);
    expect(() => parseSettings('{"hooks": []}', 'f')).toThrow(/"hooks" is not an object/);
    expect(() => parseSettings('{"hooks": {"Stop": {}}}', 'f')).toThrow(
      /"hooks.Stop" is not a list/,
    );
    expect(settingsText({ a: 1 })).toBe('{\n  "a": 1\n}\n');
  });
});
