import type { Probe } from '../observation.js';

/** The `http` check type. */
export const httpProbe: Probe = async (check) => {
  throw new Error(`the http probe is not built yet (${check.name})`);
};
