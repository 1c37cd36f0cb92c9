import { describeStorage } from '@tidings/core/conformance';
import { memoryStorage } from '../src/index.js';

// With shared records: memory-shared-records.test.ts, beside this file.
describeStorage('memory', { create: () => memoryStorage() });
