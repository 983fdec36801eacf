/**
 * The labels a simulated machine carries in its overview (the labels scenario): 8 of them with
 * the cardinalities of a real fleet, worked out from the machine's index so that every run,
 * every report and the wrk script (labelsLua) give each machine the same map.
 */

const SITES = ['fra', 'ams', 'lon', 'par', 'waw', 'mad', 'mil', 'sto', 'dub', 'vie'];
const ENVS = ['prod', 'staging', 'dev'];
const ROLES = ['web', 'db', 'cache', 'gpu', 'build', 'batch', 'storage', 'edge'];
const OSES = ['debian-12', 'ubuntu-24.04', 'rhel-9', 'alpine-3.20'];
const ZONES = ['a', 'b', 'c'];
const TEAMS = 20;
const RACKS = 40;
const OWNERS = 50;

/** The selector the scenario reads with, and the share of the fleet it selects (1 site of 10). */
export const SELECTOR = 'site=fra';

/** How many of the first `machines` machines SELECTOR selects. */
export function selectedCount(machines: number): number {
  let n = 0;
  for (let i = 0; i < machines; i++) if (i % SITES.length === 0) n += 1;
  return n;
}

/** Machine `index`'s labels, keys in order (as the board keeps them). */
export function machineLabels(index: number): Record<string, string> {
  const site = SITES[index % SITES.length] as string;
  return {
    env: ENVS[Math.floor(index / 10) % ENVS.length] as string,
    os: OSES[(index * 11) % OSES.length] as string,
    owner: `owner-${String((index * 17) % OWNERS).padStart(2, '0')}`,
    rack: `${site}-r${String((index * 13) % RACKS).padStart(2, '0')}`,
    role: ROLES[(index * 3 + 1) % ROLES.length] as string,
    site,
    team: `team-${String((index * 7) % TEAMS).padStart(2, '0')}`,
    zone: `${site}-${ZONES[Math.floor(index / 30) % ZONES.length]}`,
  };
}

/** `"labels":{…}` of machine `index`, exactly as JSON.stringify writes it. */
export function labelsJson(index: number): string {
  return `"labels":${JSON.stringify(machineLabels(index))}`;
}

/**
 * A Lua function `labels(idx)` returning `"labels":{…}` of machine idx (0-based), the same text
 * as labelsJson: the wrk report script's bodies carry each machine's own labels.
 */
export function labelsLua(): string {
  const list = (values: readonly string[]) => `{ ${values.map((v) => `"${v}"`).join(', ')} }`;
  const at = (table: string, expr: string) => `${table}[(${expr}) % #${table} + 1]`;
  const pad = (expr: string) => `string.format("%02d", ${expr})`;
  return `
local SITES = ${list(SITES)}
local ENVS = ${list(ENVS)}
local ROLES = ${list(ROLES)}
local OSES = ${list(OSES)}
local ZONES = ${list(ZONES)}
local function labels(idx)
  local site = ${at('SITES', 'idx')}
  return '"labels":{"env":"' .. ${at('ENVS', 'math.floor(idx / 10)')} ..
    '","os":"' .. ${at('OSES', 'idx * 11')} ..
    '","owner":"owner-' .. ${pad(`(idx * 17) % ${OWNERS}`)} ..
    '","rack":"' .. site .. '-r' .. ${pad(`(idx * 13) % ${RACKS}`)} ..
    '","role":"' .. ${at('ROLES', 'idx * 3 + 1')} ..
    '","site":"' .. site ..
    '","team":"team-' .. ${pad(`(idx * 7) % ${TEAMS}`)} ..
    '","zone":"' .. site .. '-' .. ${at('ZONES', 'math.floor(idx / 30)')} .. '"}'
end
`;
}
