import type { ErasedCounts, SubscriberExport } from '../../schemas/index.js';
import type { EngineContext } from '../context.js';
import { eraseSubscriber } from './erase-subscriber.js';
import { exportSubscriber } from './export-subscriber.js';

/** Erase and export one subscriber (GDPR articles 17 and 20), beside `subscribers`' other calls. */
export function withPrivacy<T extends object>(ctx: EngineContext, subscribers: T): T & ReturnType<typeof privacyApi> {
  return Object.assign(subscribers, privacyApi(ctx));
}

export function privacyApi(ctx: EngineContext) {
  return {
    /**
     * Removes everything held about the subscriber in one transaction (see `eraseSubscriber`), unlike
     * `delete`, which keeps their messages and runs. A suppression of their address stays as a hash
     * of it. Recorded in the audit log under a hash of their id. not_found when absent.
     */
    erase: (subscriberId: string): Promise<ErasedCounts> => ctx.storage.transaction((tx) => eraseSubscriber(ctx, tx, subscriberId)),
    /** Everything held about the subscriber as one JSON document (`subscriberExportSchema`). not_found when absent. */
    export: (subscriberId: string): Promise<SubscriberExport> => exportSubscriber(ctx, subscriberId),
  };
}
