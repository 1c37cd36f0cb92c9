import { project } from '../../vitest.shared.ts';

// The files share their modules within a worker: each no longer imports the engine anew (the spies
// and environment variables a file sets are restored after it).
export default project('framework', { isolate: false });
