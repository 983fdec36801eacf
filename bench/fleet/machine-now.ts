/**
 * The overview's fields of DESIGN.md 11 (src/shared/wire/machine-now.ts) for a simulated
 * machine: 8 containers, the 20 busiest processes, 3 network interfaces, 6 temperatures and 2
 * disks' health (about 4.5 KB), different at every answer as the rest of the overview is.
 */

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
/** Containers started and disks counted from here, so every run builds the same fleet. */
const EPOCH = Date.UTC(2026, 10, 1);

const CONTAINERS = [
  {
    name: 'web',
    image: 'docker.io/library/nginx:1.27-alpine',
    cpu: 0.02,
    mem: 48 * MIB,
    limit: 512 * MIB,
    check: true,
  },
  {
    name: 'api',
    image: 'ghcr.io/example/api:2.14.3',
    cpu: 0.11,
    mem: 610 * MIB,
    limit: 2 * GIB,
    check: true,
  },
  {
    name: 'worker',
    image: 'ghcr.io/example/worker:2.14.3',
    cpu: 0.24,
    mem: 1.4 * GIB,
    limit: 4 * GIB,
    check: false,
  },
  {
    name: 'postgres',
    image: 'docker.io/library/postgres:16.4',
    cpu: 0.06,
    mem: 2.1 * GIB,
    limit: null,
    check: true,
  },
  {
    name: 'redis',
    image: 'docker.io/library/redis:7.4-alpine',
    cpu: 0.01,
    mem: 96 * MIB,
    limit: 1 * GIB,
    check: false,
  },
  {
    name: 'prometheus',
    image: 'quay.io/prometheus/prometheus:v2.54.1',
    cpu: 0.03,
    mem: 420 * MIB,
    limit: null,
    check: false,
  },
  {
    name: 'grafana',
    image: 'docker.io/grafana/grafana:11.2.0',
    cpu: 0.005,
    mem: 130 * MIB,
    limit: 1 * GIB,
    check: true,
  },
  // Ran to the end of its job: the one exited container of each machine.
  {
    name: 'backup-nightly',
    image: 'docker.io/restic/restic:0.17.1',
    cpu: 0,
    mem: 0,
    limit: null,
    check: false,
  },
] as const;
const EXITED = CONTAINERS.length - 1;
/** Which container turns unhealthy now and then. */
const FLAKY = 1;

/**
 * The busiest processes: the first 10 by CPU, the next 10 by memory, each group's bases far
 * enough apart (× 1.6) that the ±20 % wave never changes its order.
 */
const PROCESSES = [
  ['node', 'ci', 0.42, 900 * MIB],
  ['python3', 'ci', 0.26, 1.1 * GIB],
  ['postgres', 'postgres', 0.16, 310 * MIB],
  ['java', 'jenkins', 0.1, 1.6 * GIB],
  ['dockerd', 'root', 0.062, 140 * MIB],
  ['nginx', 'www-data', 0.038, 24 * MIB],
  ['containerd', 'root', 0.024, 70 * MIB],
  ['redis-server', 'redis', 0.015, 96 * MIB],
  ['prometheus', 'nobody', 0.009, 420 * MIB],
  ['sshd', 'root', 0.0056, 9 * MIB],
  ['java', 'jenkins', 0.004, 3.4 * GIB],
  ['postgres', 'postgres', 0.002, 2.1 * GIB],
  ['python3', 'ci', 0.001, 1.3 * GIB],
  ['node', 'ci', 0.003, 820 * MIB],
  ['prometheus', 'nobody', 0.009, 510 * MIB],
  ['grafana', 'grafana', 0.001, 320 * MIB],
  ['dockerd', 'root', 0.06, 200 * MIB],
  ['systemd-journal', 'root', 0.0005, 125 * MIB],
  ['redis-server', 'redis', 0.015, 78 * MIB],
  ['panoptes-agent', 'panoptes', 0.002, 48 * MIB],
] as const;

const INTERFACES = [
  { name: 'eth0', rx: 12e6, tx: 3e6 },
  { name: 'eth1', rx: 800e3, tx: 2.5e6 },
  { name: 'docker0', rx: 150e3, tx: 900e3 },
] as const;

const TEMPS = [
  'coretemp Package id 0',
  'coretemp Core 0',
  'coretemp Core 1',
  'coretemp Core 2',
  'coretemp Core 3',
  'nvme Composite',
];

const DISKS = [
  { device: '/dev/nvme0', model: 'Samsung SSD 980 PRO 2TB', temp: 38 },
  { device: '/dev/sda', model: 'ST4000NM000A-2HZ100', temp: 31 },
] as const;

/** A container's id: 12 hex digits from the machine and the container. */
function containerId(i: number, k: number): string {
  const a = (Math.imul(i + 1, 2_654_435_761) >>> 0).toString(16).padStart(8, '0');
  return `${a}${(k * 4099 + (i & 0xfff)).toString(16).padStart(4, '0').slice(-4)}`;
}

/** Constants of machine `i` (names, ids, start times), worked out once per machine. */
interface Fixed {
  ids: string[];
  startedAt: string[];
  pids: number[];
}
const fixedOf = new Map<number, Fixed>();
function fixed(i: number): Fixed {
  let f = fixedOf.get(i);
  if (f === undefined) {
    f = {
      ids: CONTAINERS.map((_, k) => containerId(i, k)),
      startedAt: CONTAINERS.map((_, k) =>
        new Date(EPOCH + (i % 997) * 61_000 + k * 3_600_000).toISOString(),
      ),
      pids: PROCESSES.map((_, k) => 900 + ((i * 131 + k * 2_351) % 400_000)),
    };
    fixedOf.set(i, f);
  }
  return f;
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** What changes from one answer to the next, worked out once for both forms below. */
function moment(i: number, seq: number) {
  const f = fixed(i);
  const t = seq + i;
  const wave = (k: number) => Math.sin(t / 3 + k);
  const containers = CONTAINERS.map((c, k) => {
    const exited = k === EXITED;
    return {
      name: c.name,
      id: f.ids[k] as string,
      image: c.image,
      state: exited ? 'exited' : 'running',
      health: !c.check ? null : k === FLAKY && t % 11 === 0 ? 'unhealthy' : 'healthy',
      started_at: f.startedAt[k] as string,
      cpu: exited ? null : round(c.cpu * (1 + 0.5 * wave(k)), 4),
      mem_used: exited ? null : Math.round(c.mem * (1 + 0.1 * wave(k + 1))),
      mem_limit: exited ? null : c.limit,
      restarts: k === FLAKY ? Math.floor(t / 40) % 5 : 0,
    };
  });
  const processes = PROCESSES.map(([name, user, cpu, mem], k) => ({
    // The python3 worker is started again every 10 answers: a new pid.
    pid: (f.pids[k] as number) + (name === 'python3' ? Math.floor(t / 10) % 5000 : 0),
    name,
    user,
    cpu: round(cpu * (1 + 0.2 * wave(k)), 4),
    mem: Math.round(mem * (1 + 0.2 * wave(k + 2))),
  }));
  // Rates vary; counters grow by what the rates moved over the 5-s interval.
  const interfaces = INTERFACES.map((n, k) => ({
    name: n.name,
    rx_bps: Math.round(n.rx * (1 + 0.5 * wave(k))),
    tx_bps: Math.round(n.tx * (1 + 0.5 * wave(k + 1))),
    rx_bytes: (i + 1) * 1_000_003 * (k + 1) + Math.round(n.rx * 5 * seq),
    tx_bytes: (i + 1) * 700_001 * (k + 1) + Math.round(n.tx * 5 * seq),
  }));
  const temps = TEMPS.map((label, k) => ({
    label,
    c: round((k === 5 ? 41 : 52 - k) + 6 * wave(k), 1),
  }));
  const smart = DISKS.map((d, k) => ({
    device: d.device,
    model: d.model,
    // One machine in 97 has a disk whose self-assessment failed.
    passed: !(k === 1 && i % 97 === 0),
    temp_c: d.temp + Math.round(2 * wave(k)),
    power_on_hours: 8_000 + (i % 5_000) + Math.floor((seq * 5) / 3_600),
  }));
  let rx = 0;
  let tx = 0;
  for (const n of interfaces) {
    rx += n.rx_bps;
    tx += n.tx_bps;
  }
  return { containers, processes, net: { rx_bps: rx, tx_bps: tx, interfaces }, temps, smart };
}

/** The fields of machine `index` at its `seq`-th answer, as an object (for the overview's end). */
export function machineNow(index: number, seq: number): Record<string, unknown> {
  return moment(index, seq);
}

const text = JSON.stringify;
const IMAGE_JSON = CONTAINERS.map((c) => `,"image":${text(c.image)},"state":"`);
const PROCESS_JSON = PROCESSES.map(([name, user]) => `,"name":${text(name)},"user":${text(user)}`);

/**
 * The same fields as JSON members (`"containers":[…],…,"smart":[…]`), exactly what
 * `JSON.stringify` writes for them (a test holds them together), written out directly: the
 * simulator shares the board's cores.
 */
export function machineNowJson(index: number, seq: number): string {
  const m = moment(index, seq);
  let containers = '';
  for (let k = 0; k < m.containers.length; k++) {
    const c = m.containers[k] as (typeof m.containers)[number];
    containers +=
      `${k === 0 ? '' : ','}{"name":"${c.name}","id":"${c.id}"${IMAGE_JSON[k]}${c.state}",` +
      `"health":${c.health === null ? 'null' : `"${c.health}"`},"started_at":"${c.started_at}",` +
      `"cpu":${c.cpu},"mem_used":${c.mem_used},"mem_limit":${c.mem_limit},"restarts":${c.restarts}}`;
  }
  let processes = '';
  for (let k = 0; k < m.processes.length; k++) {
    const p = m.processes[k] as (typeof m.processes)[number];
    processes += `${k === 0 ? '' : ','}{"pid":${p.pid}${PROCESS_JSON[k]},"cpu":${p.cpu},"mem":${p.mem}}`;
  }
  const interfaces = m.net.interfaces
    .map(
      (n) =>
        `{"name":"${n.name}","rx_bps":${n.rx_bps},"tx_bps":${n.tx_bps},` +
        `"rx_bytes":${n.rx_bytes},"tx_bytes":${n.tx_bytes}}`,
    )
    .join(',');
  const temps = m.temps.map((t) => `{"label":"${t.label}","c":${t.c}}`).join(',');
  const smart = m.smart
    .map(
      (d) =>
        `{"device":"${d.device}","model":"${d.model}","passed":${d.passed},` +
        `"temp_c":${d.temp_c},"power_on_hours":${d.power_on_hours}}`,
    )
    .join(',');
  return (
    `"containers":[${containers}],"processes":[${processes}],` +
    `"net":{"rx_bps":${m.net.rx_bps},"tx_bps":${m.net.tx_bps},"interfaces":[${interfaces}]},` +
    `"temps":[${temps}],"smart":[${smart}]`
  );
}
