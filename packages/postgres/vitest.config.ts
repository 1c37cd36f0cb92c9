import { project } from '../../vitest.shared.ts';

// The files share their modules within a worker: each no longer imports the engine anew.
export default project('postgres', { isolate: false });
