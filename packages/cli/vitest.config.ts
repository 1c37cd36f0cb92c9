import { project } from '../../vitest.shared.ts';

// Most of these files start servers (in process or as child processes) and wait on them.
export default project('cli');
