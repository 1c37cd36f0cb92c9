export { resolvePreferences, resolveGlobalPreference, resolveChannel, channelPermitted, workflowChannels } from './resolve-preferences.js';
export { applyPreferencesPatch, type PreferencePatch } from './merge-patch.js';
