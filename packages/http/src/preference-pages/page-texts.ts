/**
 * The pages' own texts in English, under `tidings.pages.*`: an environment translates them like any
 * other key (`translations.upsert({ locale: 'pt-BR', entries: { tidings: { pages: { … } } } })`).
 */
export const PAGE_TEXTS = {
  tidings: {
    pages: {
      refusedTitle: 'This link does not work',
      refusedHint: 'Use the link of a more recent email, or ask for a new one.',
      unsubscribeTitle: 'Unsubscribe',
      unsubscribeAsk: 'Stop receiving “{workflow}” emails?',
      unsubscribeButton: 'Unsubscribe',
      unsubscribedTitle: 'You are unsubscribed',
      unsubscribedText: 'You will no longer receive “{workflow}” emails.',
      resubscribeButton: 'Resubscribe',
      resubscribedTitle: 'You are subscribed again',
      resubscribedText: 'You will receive “{workflow}” emails again.',
      manageLink: 'Manage all your notification preferences',
      preferencesTitle: 'Notification preferences',
      allNotifications: 'All notifications',
      alwaysSent: 'Always sent: {workflows}.',
      save: 'Save',
      saved: 'Saved.',
      channel: { email: 'Email', sms: 'SMS', in_app: 'In-app', chat: 'Chat', push: 'Push' },
    },
  },
};
