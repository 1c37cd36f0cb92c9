import { project } from '../../vitest.shared';

export default project('example-quickstart');
