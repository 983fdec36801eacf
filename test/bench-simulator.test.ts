import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedAgents } from '../bench/fleet/agents.js';
import { overview, overviewJson } from '../bench/fleet/overview.js';
import type { SimMachine } from '../bench/fleet/protocol.js';
import { createAgentClient } from '../dist/board/polling/agent-client.js';
import type { AgentClient } from '../src/board/domain/agent-client.js';
import { Overview } from '../src/shared/wire/overview.js';

/**
 * The bench's fleet simulator answers HTTP on raw sockets (it shares the board's cores, so it
 * must be cheap); these tests hold it to what the board's own client needs, so that the bench
 * measures the board against agents that speak HTTP/1.1 as real ones do.
 */
describe('the fleet simulator of the bench', () => {
  it('writes exactly the JSON of the overview object, with and without the fields of DESIGN.md 11 and labels', () => {
    const now = Date.parse('2026-11-23T12:00:00.000Z');
    for (const [machineNow, labels] of [
      [false, false],
      [true, false],
      [false, true],
      [true, true],
    ] as const) {
      for (let index = 0; index < 300; index += 7) {
        for (let seq = 0; seq < 30; seq += 1) {
          const shape = { name: `m-${index}`, index, machineNow, labels };
          expect(overviewJson(shape, seq, now + seq)).toBe(
            JSON.stringify(overview(shape, seq, now + seq)),
          );
        }
      }
    }
  });

  it("builds overviews the agent's wire contract accepts, the new fields varying", () => {
    const now = Date.parse('2026-11-23T12:00:00.000Z');
    const seen = { unhealthy: 0, pids: new Set<number>(), rx: new Set<number>() };
    for (let seq = 0; seq < 60; seq += 1) {
      const o = overview({ name: 'm-97', index: 97, machineNow: true }, seq, now) as Overview;
      expect([...Value.Errors(Overview, o)]).toEqual([]);
      expect(Value.Check(Overview, o)).toBe(true);
      expect([o.containers?.length, o.processes?.length, o.net?.interfaces.length]).toEqual([
        8, 20, 3,
      ]);
      expect([o.temps?.length, o.smart?.length]).toEqual([6, 2]);
      expect(o.containers?.filter((c) => c.state === 'exited')).toHaveLength(1);
      seen.unhealthy += o.containers?.filter((c) => c.health === 'unhealthy').length ?? 0;
      for (const p of o.processes ?? []) seen.pids.add(p.pid);
      seen.rx.add(o.net?.interfaces[0]?.rx_bytes ?? 0);
    }
    expect(seen.unhealthy).toBeGreaterThan(0);
    expect(seen.unhealthy).toBeLessThan(60);
    expect(seen.pids.size).toBeGreaterThan(20);
    expect(seen.rx.size).toBe(60);
    expect(Value.Check(Overview, overview({ name: 'm-1', index: 1 }, 1, now))).toBe(true);
  });

  let agents: SimulatedAgents;
  let machines: SimMachine[];
  let client: AgentClient;
  const of = (kind: SimMachine['kind']): SimMachine => {
    const found = machines.find((m) => m.kind === kind);
    if (found === undefined) throw new Error(`no ${kind} machine`);
    return found;
  };

  beforeAll(async () => {
    agents = new SimulatedAgents();
    const served = await agents.serve({
      type: 'serve',
      machines: 20,
      blackHoleShare: 0.1,
      refusingShare: 0.1,
      slowShare: 0.1,
      slowMs: [50, 100],
      seed: 7,
    });
    machines = served.machines;
    client = createAgentClient({ connectTimeoutMs: 1000 });
  });

  afterAll(async () => {
    await client?.close();
    await agents?.close();
  });

  it('answers the board client over kept-alive connections, a new overview each time', async () => {
    const machine = of('ok');
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i += 1) {
      const observation = await client.overview(machine, 2000);
      expect(observation.ok).toBe(true);
      if (observation.ok) {
        expect(observation.overview?.name).toBe(machine.name);
        seen.push(observation.overview?.uptime_s);
      }
    }
    expect(new Set(seen).size).toBe(3);
    const slow = await client.overview(of('slow'), 2000);
    expect(slow.ok).toBe(true);
    expect(agents.stats().polls.ok + agents.stats().polls.slow).toBe(4);
  });

  it('refuses a wrong key, relays an action, and has silent and refusing machines', async () => {
    const machine = of('ok');
    const wrong = await client.overview({ ...machine, key: 'not-the-key' }, 2000);
    expect(wrong).toEqual({ ok: false, error: 'the agent answered HTTP 401' });
    const relayed = await client.relay(machine, 'backup', 'start', 2000);
    expect(relayed).toMatchObject({ kind: 'answer', status: 200 });
    expect(await client.overview(of('black-hole'), 300)).toMatchObject({ ok: false });
    const refused = await client.overview(of('refusing'), 2000);
    expect(refused.ok).toBe(false);
    expect(agents.stats()).toMatchObject({ relays: 1, unauthorised: 1 });
  });
});
