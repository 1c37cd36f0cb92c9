import { z } from 'zod';

/** Longest id or key (subscriberId, topic key, tenant and workflow identifiers, transactionId …). */
export const MAX_ID_LENGTH = 256;
/** Most direct recipients (ids and subscriber objects in `to`) of one event; larger audiences go through topics. */
export const MAX_RECIPIENTS_PER_EVENT = 1_000;
/** Most direct recipients of one bulk call, over all its events. */
export const MAX_RECIPIENTS_PER_CALL = 10_000;
/** Deepest nesting of objects and arrays in any input (payloads, data, overrides). */
export const MAX_INPUT_DEPTH = 32;

/**
 * Most device tokens one subscriber holds for one push provider, over all its channel settings for
 * that provider (one per integration identifier). A device has one token per app, so a subscriber
 * has a handful; and 100 is what Expo takes in one request, so one push is one request to it.
 */
export const MAX_DEVICE_TOKENS_PER_PROVIDER = 100;
/**
 * Longest device token: APNs tokens are 64 hex digits, FCM's about 160 characters and Expo's about 45;
 * the room is for a push endpoint of your own that takes something longer (a web push subscription).
 */
export const MAX_DEVICE_TOKEN_LENGTH = 4_096;

/** A required id or key: trimmed, not empty, at most MAX_ID_LENGTH characters. */
export const idSchema = z.string().trim().min(1, 'must not be empty').max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);

/*
 * Filters of a subscriber's messages (the feed, counts and the bulk changes of `tidings.messages`,
 * and Novu's Inbox routes). Each tag, data member and severity is one more SQL condition; past these
 * caps a filter is refused as validation_failed (HTTP 422) before any query runs. The tag caps are
 * Novu's own (`@novu/shared` normalizeTagGroups).
 */
/** Most tags in one OR group: a flat `tags` list, or one group of an AND of groups (Novu: 100). */
export const MAX_FILTER_TAGS_PER_GROUP = 100;
/** Most OR groups in an AND of groups (`[['a', 'b'], ['c']]`) (Novu: 30). */
export const MAX_FILTER_TAG_GROUPS = 30;
/** Most tags in all the groups of one filter together (Novu: 200). */
export const MAX_FILTER_TAGS = 200;
/** Most severities in one filter's list: each of the four once. */
export const MAX_FILTER_SEVERITIES = 4;
/** Most members of one filter's `data` (Novu has no cap of its own). */
export const MAX_FILTER_DATA_KEYS = 50;
/** Most workflow preferences changed in one call (`preferences.updateMany`, the Inbox's bulk route) (Novu: 100). */
export const MAX_PREFERENCE_UPDATES = 100;
