import { configDefaults } from 'vitest/config';
import { project } from '../../vitest.shared.ts';

/** Files whose clients (Novu's SDKs) keep state between files: they run isolated (vitest.isolated.config.ts). */
export const ISOLATED = ['test/novu-e2e.test.ts', 'test/novu-v2-workflows.test.ts', 'test/novu-v2-people.test.ts', 'test/novu-sdk-parsers.test.ts', 'test/broadcast.test.ts', 'test/novu-contexts.test.ts', 'test/novu-v2-notifications.test.ts', 'test/novu-subscriber-status.test.ts'];

// The other files share their modules within a worker: each no longer imports the whole server anew
// (the project ran in about two thirds of the time).
export default project('http', { isolate: false, exclude: [...configDefaults.exclude, ...ISOLATED] });
