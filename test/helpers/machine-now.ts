import { type FaultyAgent, httpAgent, overview } from './faulty-agents.js';

/**
 * What the machine page shows of a machine now (DESIGN.md 11), as an agent's overview carries
 * it: containers, processes, network, temperatures and disk health, plus services and a GPU.
 */

/** A container as the agent's engine reads it; `extra` overrides any field. */
export function container(name: string, extra: Record<string, unknown> = {}) {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return {
    name,
    id: hash.toString(16).padStart(12, '0'),
    image: `registry.lab/${name}:1.0`,
    state: 'running',
    health: null,
    started_at: new Date(Date.now() - 3_600_000).toISOString(),
    cpu: 0.01,
    mem_used: 64e6,
    mem_limit: 512e6,
    restarts: 0,
    ...extra,
  };
}

/** A service view, as an agent's overview lists it. */
export function service(name: string, kind: string, state = 'running') {
  return {
    name,
    kind,
    state,
    actions: ['start', 'stop'],
    board: ['start', 'stop'],
    busy: false,
    timeout_s: 15,
  };
}

/** Eight containers, seven running: `web` is published, `db` unhealthy, `cron` exited. */
function eightContainers(): Record<string, unknown>[] {
  return [
    container('web', { image: 'nginx:1.27', cpu: 0.125, mem_used: 150e6, mem_limit: 1e9 }),
    container('db', { image: 'postgres:16', health: 'unhealthy', restarts: 3 }),
    container('cron', { state: 'exited', cpu: null, mem_used: null, mem_limit: null }),
    container('cache', { image: 'redis:7', health: 'healthy' }),
    container('queue'),
    container('worker'),
    container('metrics'),
    container('proxy'),
  ];
}

/** Every source of a machine's "now", with values a test can look for on the page. */
export function machineNow(): Record<string, unknown> {
  return {
    services: [service('web', 'container'), service('backup', 'command', 'stopped')],
    sessions: [
      {
        session: 'refactor-auth',
        why: 'attention',
        text: 'Which token store?',
        at: new Date(Date.now() - 60_000).toISOString(),
      },
      {
        session: 'docs-pass',
        why: 'finished',
        text: 'Done.',
        at: new Date(Date.now() - 120_000).toISOString(),
      },
    ],
    gpus: [
      {
        index: 0,
        name: 'NVIDIA L40S',
        util: 0.42,
        mem_used: 12e9,
        mem_total: 48e9,
        temp_c: 61,
        power_w: 210,
      },
    ],
    containers: eightContainers(),
    processes: [
      { pid: 4242, name: 'postgres', user: 'postgres', cpu: 0.31, mem: 2.1e9 },
      { pid: 777, name: 'node', user: 'app', cpu: 0.55, mem: 450e6 },
      { pid: 12, name: 'kswapd0', user: 'root', cpu: 0.02, mem: 0 },
      { pid: 900, name: 'java', user: 'search', cpu: 0.05, mem: 3.2e9 },
    ],
    net: {
      rx_bps: 1_500_000,
      tx_bps: 2_400,
      interfaces: [
        { name: 'eth0', rx_bps: 1_499_000, tx_bps: 2_300, rx_bytes: 9e12, tx_bytes: 4e11 },
        { name: 'wg0', rx_bps: 1_000, tx_bps: 100, rx_bytes: 5e8, tx_bytes: 2e8 },
      ],
    },
    temps: [
      { label: 'coretemp Core 0', c: 54 },
      { label: 'coretemp Package id 0', c: 81.4 },
      { label: 'nvme Composite', c: 38 },
    ],
    smart: [
      {
        device: '/dev/nvme0',
        model: 'Samsung SSD 990 PRO 2TB',
        passed: true,
        temp_c: 38,
        power_on_hours: 12_345,
      },
      {
        device: '/dev/sda',
        model: 'WDC WD40EFRX',
        passed: false,
        temp_c: 44,
        power_on_hours: 61_000,
      },
    ],
  };
}

/** Every source failed: each `<field>_error` and none of the fields. */
export function failedSources(): Record<string, unknown> {
  return {
    containers_error: 'connect ENOENT /var/run/docker.sock',
    processes_error: 'EACCES reading /proc',
    net_error: 'no /proc/net/dev',
    temps_error: 'no hwmon sensors readable',
    smart_error: 'smartctl exited with code 2',
    gpus_error: 'nvidia-smi timed out after 5 s',
  };
}

/** A fake agent the board polls: its overview is `fields` (changeable), its actions are noted. */
export interface NowAgent {
  url: string;
  /** The overview's fields beyond the basic ones; replace to change what the next poll sees. */
  fields: Record<string, unknown>;
  /** Every relayed action, as "service/action". */
  actions: string[];
  close(): Promise<void>;
}

/** Starts a fake agent for machine `name` on 127.0.0.1. */
export async function nowAgent(name: string, fields: Record<string, unknown>): Promise<NowAgent> {
  const state: { fields: Record<string, unknown>; actions: string[] } = { fields, actions: [] };
  const agent: FaultyAgent = await httpAgent((req, res) => {
    const url = req.url ?? '';
    const action = /^\/api\/do\/([^/]+)\/(start|stop)$/.exec(url);
    res.setHeader('content-type', 'application/json');
    if (req.method === 'POST' && action !== null) {
      state.actions.push(`${decodeURIComponent(action[1] ?? '')}/${action[2]}`);
      res.end(JSON.stringify({ ok: true, exit_code: 0, output: '' }));
      return;
    }
    if (url === '/api/overview') {
      res.end(overview(name, { cpus: 8, cpu_use: 0.3, ...state.fields }));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ detail: 'Not Found' }));
  });
  return {
    url: agent.url,
    get fields() {
      return state.fields;
    },
    set fields(next) {
      state.fields = next;
    },
    actions: state.actions,
    close: () => agent.close(),
  };
}
