import { project } from '../../vitest.shared';

export default project('providers');
