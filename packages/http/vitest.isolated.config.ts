import { project } from '../../vitest.shared.ts';
import { ISOLATED } from './vitest.config.ts';

export default project('http-isolated', { include: ISOLATED, isolate: true });
