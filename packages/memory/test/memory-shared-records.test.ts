import { describeStorage } from '@tidings/core/conformance';
import { memoryStorage } from '../src/index.js';

describeStorage('memory (shared records)', { create: () => memoryStorage({ copyRecords: false }) });
