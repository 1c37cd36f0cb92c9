import { describe, expect, it } from 'vitest';
import { subscriptionChannelOn, subscriptionPermitted, type TopicReach } from '../src/preferences/subscription-preferences.js';

const path = (topicKey: string, preference: TopicReach['paths'][number]['preference']) => ({ topicKey, identifier: `tk_${topicKey}:si_ada`, preference });

describe('subscription preferences (the rule a topic trigger is held to)', () => {
  it('a channel passes when the workflow is on and the channel is not turned off', () => {
    expect(subscriptionChannelOn({ enabled: true, channels: {} }, 'email')).toBe(true);
    expect(subscriptionChannelOn({ enabled: true, channels: { email: false } }, 'email')).toBe(false);
    expect(subscriptionChannelOn({ enabled: true, channels: { email: false } }, 'in_app')).toBe(true);
    expect(subscriptionChannelOn({ enabled: false, channels: { email: true } }, 'email')).toBe(false);
  });

  it('no reach, a path without a preference, or any path that lets the channel through: allowed; critical workflows always', () => {
    const off = path('news', { enabled: true, channels: { email: false } });
    expect(subscriptionPermitted({ critical: false }, undefined, 'email')).toEqual({ allowed: true });
    expect(subscriptionPermitted({ critical: false }, { paths: [off, path('alerts', null)] }, 'email')).toEqual({ allowed: true });
    expect(subscriptionPermitted({ critical: false }, { paths: [off, path('alerts', { enabled: true, channels: {} })] }, 'email')).toEqual({ allowed: true });
    expect(subscriptionPermitted({ critical: true }, { paths: [off] }, 'email')).toEqual({ allowed: true });
  });

  it('every path turning it off skips the channel, naming each subscription', () => {
    const reach = { paths: [path('news', { enabled: true, channels: { email: false } }), path('alerts', { enabled: false, channels: {} })] };
    expect(subscriptionPermitted({ critical: false }, reach, 'email')).toEqual({
      allowed: false,
      reason: 'email is off in the subscription "tk_news:si_ada" to topic "news"; the workflow is off in the subscription "tk_alerts:si_ada" to topic "alerts"',
    });
    expect(subscriptionPermitted({ critical: false }, reach, 'in_app')).toEqual({ allowed: true });
  });
});
