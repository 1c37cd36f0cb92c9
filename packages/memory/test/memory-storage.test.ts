import { describeStorage } from '@tidings/core/testing';
import { memoryStorage } from '../src/index.js';

describeStorage('memory', { create: () => memoryStorage() });
