import { describeStorage } from '@tidings/core/conformance';
import { rawSqlMessage } from '../../../test-support/sql-raw-message.js';
import { rawSqlDump } from '../../../test-support/sql-raw-dump.js';
import { sqliteStorage } from '../src/index.js';

describeStorage('sqlite', { create: () => sqliteStorage({ filename: ':memory:' }), rawMessage: rawSqlMessage, rawDump: rawSqlDump }, 'faults');
