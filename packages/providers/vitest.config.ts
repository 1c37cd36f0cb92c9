import { configDefaults } from 'vitest/config';
import { project } from '../../vitest.shared.ts';

/** Files that mock a module: they run isolated (vitest.mocked.config.ts). */
export const MOCKED = ['test/push-apns-hosts.test.ts'];

// The other files share their modules within a worker: each no longer imports the providers anew.
export default project('providers', { isolate: false, exclude: [...configDefaults.exclude, ...MOCKED] });
