import flags from './v8-flags.json' with { type: 'json' };

/**
 * Node's options the agent runs with (a smaller heap: DESIGN.md 13, docs/agent.md), in the
 * systemd unit's ExecStart and in the single executable's execArgv.
 */
export const V8_FLAGS: readonly string[] = flags;
