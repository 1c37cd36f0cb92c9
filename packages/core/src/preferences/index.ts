export { resolvePreferences, resolveGlobalPreference, resolveCategories, resolveChannel, channelPermitted, workflowChannels, type PreferenceLayer } from './resolve-preferences.js';
export { applyPreferencesPatch, preferenceRowKey, type PreferencePatch } from './merge-patch.js';
export { categoryFromTags, categoryName, unsubscribeScope } from './categories.js';
