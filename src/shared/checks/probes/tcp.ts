import type { Probe } from '../observation.js';

/** The `tcp` check type. */
export const tcpProbe: Probe = async (check) => {
  throw new Error(`the tcp probe is not built yet (${check.name})`);
};
