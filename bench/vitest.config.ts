import { project } from '../vitest.shared.ts';

export default project('bench', { testTimeout: 180_000 });
