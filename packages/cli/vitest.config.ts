import { project } from '../../vitest.shared.ts';

// Most of these files start servers (in process or as child processes) and wait on them. They share
// their modules within a worker: each no longer imports the server anew.
export default project('cli', { isolate: false });
