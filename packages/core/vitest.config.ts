import { configDefaults } from 'vitest/config';
import { project } from '../../vitest.shared.ts';

// Core's tests share their modules within a worker (each file no longer imports the whole engine
// anew: the project ran in a third of the time). The one test that mocks a module runs in a project
// of its own, isolated (see the root vitest.config.ts).
export default project('core', { isolate: false, exclude: [...configDefaults.exclude, 'test/walk-once.test.ts'] });
