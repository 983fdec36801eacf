import { describe, expect, it } from 'vitest';
import type { HandedChecks } from '../../shared/checks/wire.js';
import { ManualClock } from '../../shared/clock.js';
import { toLabels } from '../../shared/labels.js';
import type { AgentClient, AgentTarget, RelayOutcome } from '../domain/agent-client.js';
import { readChecks } from './check-config.js';
import { CheckHanding } from './handing.js';
import { HAND_RETRY_MS, PolledHanding } from './polled-handing.js';

const CHECKS = readChecks(
  [{ name: 'web', type: 'tcp', target: '127.0.0.1:80', runners: { selector: 'site=a' } }],
  [],
);

/** A polled-handing over a client whose PUTs wait until the test answers them. */
function kit() {
  const clock = new ManualClock();
  const puts: { target: AgentTarget; checks: HandedChecks; answer: (o: RelayOutcome) => void }[] =
    [];
  const failures: string[] = [];
  const client = {
    handChecks: (target: AgentTarget, checks: HandedChecks) =>
      new Promise<RelayOutcome>((answer) => puts.push({ target, checks, answer })),
  } as unknown as AgentClient;
  const handing = new CheckHanding(() => CHECKS);
  const labels = new Map([
    ['m1', toLabels({ site: 'a' })],
    ['m2', toLabels({ site: 'z' })],
  ]);
  const polled = new PolledHanding({
    handing,
    labels: (name) => labels.get(name),
    target: (name) => ({ url: `http://${name}:8701`, key: `key-of-${name}` }),
    client,
    timeoutMs: () => 1000,
    clock,
    failed: (name, detail) => failures.push(`${name}: ${detail}`),
  });
  const version = handing.forMachine('m1', toLabels({ site: 'a' })).version;
  return { clock, puts, failures, polled, version };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('checks handed to polled agents', () => {
  it('PUTs the checks with the machine’s key after a poll showing another version, one at a time', async () => {
    const { puts, polled, version } = kit();
    polled.polled('m1', '');
    polled.polled('m1', '');
    expect(puts).toHaveLength(1);
    expect(puts[0]?.target).toEqual({ url: 'http://m1:8701', key: 'key-of-m1' });
    expect(puts[0]?.checks.checks.map((c) => c.name)).toEqual(['web']);
    puts[0]?.answer({ kind: 'answer', status: 200, body: { version } });
    await settle();
    polled.polled('m1', version);
    expect(puts).toHaveLength(1);
  });

  it('leaves alone an agent with nothing to run that says nothing (an older agent)', () => {
    const { puts, polled } = kit();
    polled.polled('m2', undefined);
    polled.polled('m2', '');
    polled.polled('unknown', '');
    expect(puts).toHaveLength(0);
  });

  it('tries a failed hand-over again at a poll after HAND_RETRY_MS, telling the first failure once', async () => {
    const { clock, puts, failures, polled } = kit();
    polled.polled('m1', undefined);
    puts[0]?.answer({ kind: 'answer', status: 404, body: { detail: 'Not Found' } });
    await settle();
    expect(failures).toEqual(['m1: the agent answered 404']);
    polled.polled('m1', undefined);
    expect(puts).toHaveLength(1);
    clock.advance(HAND_RETRY_MS);
    polled.polled('m1', undefined);
    expect(puts).toHaveLength(2);
    puts[1]?.answer({ kind: 'unreachable', error: 'connection refused' });
    await settle();
    expect(failures).toHaveLength(1);
  });
});
