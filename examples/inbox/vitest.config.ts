import { project } from '../../vitest.shared.ts';

export default project('example-inbox', { testTimeout: 60_000 });
