import { project } from '../../vitest.shared.ts';

export default project('example-novu-inbox', { testTimeout: 90_000 });
