import type { Probe } from '../observation.js';

/** The `icmp` check type. */
export const icmpProbe: Probe = async (check) => {
  throw new Error(`the icmp probe is not built yet (${check.name})`);
};
