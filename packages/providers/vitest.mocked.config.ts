import { project } from '../../vitest.shared.ts';
import { MOCKED } from './vitest.config.ts';

export default project('providers-mocked', { include: MOCKED, isolate: true });
