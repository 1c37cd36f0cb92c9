import { makeBundleDirectory } from './spawn-ts.js';

/**
 * Vitest global setup (root vitest.config.ts): a directory for the bundles spawnTs starts its children
 * from, one per script for the whole run, removed when the run ends.
 */
export default function setup(): () => void {
  return makeBundleDirectory();
}
