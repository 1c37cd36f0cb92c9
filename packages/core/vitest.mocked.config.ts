import { project } from '../../vitest.shared.ts';

// Core's test that mocks a module, isolated: the core project shares modules between its files.
export default project('core-mocked', { include: ['test/walk-once.test.ts'], isolate: true });
