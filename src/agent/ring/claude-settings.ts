/**
 * Claude Code's settings (`~/.claude/settings.json`) with the bell's hooks merged in or taken
 * out. Everything else in the file is kept as it was: other keys, other hooks, their order.
 */

/** The events the bell is hooked to: Notification rings "attention", Stop "finished". */
export const CLAUDE_EVENTS = ['Notification', 'Stop'] as const;

type Settings = Record<string, unknown>;

/**
 * Whether a hook command is one `hooks install claude` wrote: it runs the Panoptes agent (the
 * one file, a binary, or a clone's cli.js) with `bell … --hook`.
 */
export function isBellHookCommand(command: unknown): boolean {
  if (typeof command !== 'string') return false;
  const words = command.split(/\s+/).map((w) => w.replace(/^['"]|['"]$/g, ''));
  const bell = words.indexOf('bell');
  return (
    bell > 0 &&
    words.slice(0, bell).some((w) => /panoptes/i.test(w)) &&
    words.slice(bell + 1).includes('--hook')
  );
}

/** The settings parsed from the file's text (null: no file); throws on what is not settings. */
export function parseSettings(text: string | null, file: string): Settings {
  if (text === null || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON (${(error as Error).message}); nothing was changed`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${file} is not a JSON object; nothing was changed`);
  }
  const hooks = (value as Settings).hooks;
  if (
    hooks !== undefined &&
    (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))
  ) {
    throw new Error(`${file}: "hooks" is not an object; nothing was changed`);
  }
  for (const [event, groups] of Object.entries((hooks ?? {}) as Settings)) {
    if (!Array.isArray(groups)) {
      throw new Error(`${file}: "hooks.${event}" is not a list; nothing was changed`);
    }
  }
  return value as Settings;
}

/** The settings without any hook of the bell's (a group left empty by it goes too). */
export function withoutBellHooks(settings: Settings): Settings {
  const hooks = settings.hooks as Record<string, unknown[]> | undefined;
  if (hooks === undefined) return settings;
  const nextHooks: Record<string, unknown[]> = {};
  let changed = false;
  for (const [event, groups] of Object.entries(hooks)) {
    const kept: unknown[] = [];
    for (const group of groups) {
      const list = (group as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(list)) {
        kept.push(group);
        continue;
      }
      const others = list.filter((h) => !isBellHookCommand((h as { command?: unknown })?.command));
      if (others.length === list.length) kept.push(group);
      else {
        changed = true;
        if (others.length > 0) kept.push({ ...(group as object), hooks: others });
      }
    }
    if (kept.length > 0 || groups.length === 0) nextHooks[event] = kept;
  }
  if (!changed) return settings;
  const next = { ...settings, hooks: nextHooks };
  if (Object.keys(nextHooks).length === 0) delete (next as Settings).hooks;
  return next;
}

/**
 * The settings with the bell's Notification and Stop hooks running `command`: one of each, at the
 * end of the event's list (where one is there already with this command, it stays where it is).
 */
export function withBellHooks(settings: Settings, command: string): Settings {
  const hooks = (settings.hooks ?? {}) as Record<string, unknown[]>;
  const ours = (event: string) =>
    (hooks[event] ?? []).flatMap((group) => {
      const list = (group as { hooks?: unknown } | null)?.hooks;
      return Array.isArray(list)
        ? list.filter((h) => isBellHookCommand((h as { command?: unknown })?.command))
        : [];
    });
  const inPlace = CLAUDE_EVENTS.every((event) => {
    const found = ours(event);
    return found.length === 1 && (found[0] as { command?: unknown }).command === command;
  });
  if (inPlace) return settings;
  const base = withoutBellHooks(settings);
  const nextHooks = { ...((base.hooks ?? {}) as Record<string, unknown[]>) };
  const entry = { type: 'command', command };
  nextHooks.Notification = [...(nextHooks.Notification ?? []), { matcher: '', hooks: [entry] }];
  nextHooks.Stop = [...(nextHooks.Stop ?? []), { hooks: [entry] }];
  return { ...base, hooks: nextHooks };
}

/** The file's text for settings: two-space JSON, as Claude Code writes it. */
export function settingsText(settings: Settings): string {
  return `${JSON.stringify(settings, null, 2)}\n`;
}
