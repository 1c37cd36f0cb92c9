import { describeStorage } from '@tidings/core/conformance';
import { rawSqlMessage } from '../../../test-support/sql-raw-message.js';
import { sqliteStorage } from '../src/index.js';

describeStorage('sqlite', { create: () => sqliteStorage({ filename: ':memory:' }), rawMessage: rawSqlMessage }, 'faults');
