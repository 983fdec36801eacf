/**
 * The checks scenario's fleet: `CHECKS` http checks every machine may run (selector `!retired`
 * matches every machine), and the results each announcing machine's report carries.
 */

/** The checks in board.yaml. */
export const CHECKS = 1000;
/** Results in each report of the simulated runners. */
export const RESULTS_PER_REPORT = 10;
/** Results a runner of every check carries per report: what fits in an agent's 48 KiB. */
export const RESULTS_THAT_FIT = 440;

export function checkName(k: number): string {
  return `http-${String(k).padStart(4, '0')}`;
}

/** board.yaml's `checks:`: `count` http checks of `target`, run by the agents `selector` picks. */
export function checksConfig(
  count: number,
  target: string,
  options: { intervalS: number; selector: (k: number) => string; failureThreshold?: number },
): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, k) => ({
    name: checkName(k),
    type: 'http',
    target,
    interval: options.intervalS,
    timeout: 5,
    conditions: ['[STATUS] == 200', '[RESPONSE_TIME] < 2000'],
    runners: { selector: options.selector(k) },
    failure_threshold: options.failureThreshold ?? 2,
  }));
}

/**
 * The results announcing machine `index` reports at `at` (ISO 8601), as JSON members: `count`
 * of them (a runner of every check: CHECKS).
 */
export function resultsJson(
  index: number,
  at: string,
  version: string,
  count = RESULTS_PER_REPORT,
  from = index * count,
): string {
  const parts: string[] = [];
  for (let j = 0; j < count; j++) {
    const k = (from + j) % CHECKS;
    parts.push(
      `{"name":"${checkName(k)}","ok":true,"ms":${10 + (j % 10)},"detail":"","at":"${at}"}`,
    );
  }
  return `"checks":[${parts.join(',')}],"checks_version":${JSON.stringify(version)}`;
}

/**
 * Lua for wrk: `checks(idx, k)` gives the same members as `resultsJson`, each report's `at` a
 * millisecond later than the one before on that thread (so every report's results are new).
 */
export function checksLua(version: string, results: boolean): string {
  if (!results)
    return `
local function checks(idx, k)
  return '"checks_version":"${version}"'
end
`;
  return `
local checks_base = os.time() * 1000
local function checks(idx, k)
  local ms = checks_base + k
  local at = os.date("!%Y-%m-%dT%H:%M:%S", math.floor(ms / 1000)) .. string.format(".%03dZ", ms % 1000)
  local parts = {}
  for j = 0, ${RESULTS_PER_REPORT - 1} do
    local c = (idx * ${RESULTS_PER_REPORT} + j) % ${CHECKS}
    parts[#parts + 1] = '{"name":"http-' .. string.format("%04d", c) .. '","ok":true,"ms":' .. (10 + j) .. ',"detail":"","at":"' .. at .. '"}'
  end
  return '"checks":[' .. table.concat(parts, ',') .. '],"checks_version":"${version}"'
end
`;
}
