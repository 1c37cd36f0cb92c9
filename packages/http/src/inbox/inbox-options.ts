/** How the Inbox routes (`/v1/inbox/*`) treat sessions. */
export interface InboxOptions {
  /**
   * Refuse sessions without a valid `subscriberHash`. Turning it off lets anyone who knows an
   * application identifier read any subscriber's inbox. @default true
   */
  readonly requireSubscriberHash?: boolean;
  /** The longest snooze the Inbox offers, in hours (0 hides snoozing). @default 720 (30 days) */
  readonly maxSnoozeDurationHours?: number;
  /**
   * Let a session change the profile of a subscriber that already exists: `email`, `phone`, `data`,
   * `firstName`, `lastName` and `avatar` as the browser sends them (Novu's behaviour). Off, a session
   * sets only `timezone` and `locale` of an existing subscriber, and the whole profile only of one it
   * creates. The subscriber hash signs the subscriberId alone, not the profile, so turning this on lets
   * every end user rewrite their own profile from the browser: send their notifications to another
   * address, or set `data` members the app trusts (`role: "admin"`). It applies only to sessions whose
   * hash was checked and valid. @default false
   */
  readonly sessionUpdatesProfile?: boolean;
}
