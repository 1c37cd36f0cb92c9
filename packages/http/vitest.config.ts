import { project } from '../../vitest.shared.ts';

export default project('http', { testTimeout: 20_000 });
