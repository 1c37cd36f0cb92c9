import type { FilterContext } from '../filters/evaluate.js';
import { resolvedContext } from '../contexts/context-keys.js';
import type { WalkInput } from './walker.js';
import { PARTIALS, TRANSLATOR } from '../templates/render.js';
import { translator, type Translator } from '../translations/translator.js';
import { canonicalLocale } from '../translations/locale-chain.js';
import type { LinkSigning } from '../email/email-look.js';
import { unsubscribeScope } from '../preferences/categories.js';
import { linkUrl, signLink, type LinkClaims, type LinkPurpose } from '../links/link-token.js';
import { stepResults } from './step-results.js';

/** The data templates and filters see in a walk. */
export function walkVariables(input: WalkInput): Record<string, unknown> & FilterContext {
  const { subscriber, notification, actor, tenant } = input;
  const variables = {
    subscriber: { ...subscriber, data: subscriber.data ?? {} },
    payload: notification.payload,
    actor: actor ?? {},
    tenant: tenant ? { identifier: tenant.identifier, name: tenant.name, data: tenant.data } : {},
    context: resolvedContext(notification.context),
    brand: input.look?.brand ?? {},
    step: input.digestEvents
      ? { events: input.digestEvents.map((e) => e.payload), total_count: input.digestEvents.length, digest: true }
      : { events: [notification.payload], total_count: 1, digest: false },
    steps: stepResults(input.state),
  };
  if (input.look?.links) withLinkVariables(variables, input, input.look.links);
  const translations = input.look?.translations;
  if (translations) {
    const translate = translator(translations.source, { locale: walkLocale(input) ?? translations.defaultLocale, defaultLocale: translations.defaultLocale, tenant: input.notification.tenantId, ...(translations.trees && { trees: translations.trees }) });
    Object.defineProperty(variables, 't', { enumerable: true, get: () => translate.tree() });
    Object.assign(variables, { locale: translate.locale, [TRANSLATOR]: translate });
  }
  return variables;
}

/** The locale of a walk's messages: the trigger's, else the subscriber's; null leaves it to the environment's default. */
export const walkLocale = (input: Pick<WalkInput, 'subscriber' | 'notification'>): string | null => input.notification.locale ?? input.subscriber.locale ?? null;

/**
 * The locale a code workflow's run is given: the walk's, else the environment's default; with
 * translation catalogs (`translated`), in the canonical form the translator gives it.
 */
export const runLocale = (input: Pick<WalkInput, 'subscriber' | 'notification'>, defaultLocale: string, translated: boolean): string => {
  const locale = walkLocale(input) ?? defaultLocale;
  return translated ? canonicalLocale(locale) : locale;
};

/** What `explain` notes of a step's translations: the locale used and each key that fell back. */
export function translationNote(variables: Record<string, unknown>): { locale?: string; translationFallbacks?: string[] } {
  const translate = (variables as { [TRANSLATOR]?: Translator })[TRANSLATOR];
  if (!translate?.used) return {};
  const fallbacks = translate.takeFallbacks();
  return { locale: translate.locale, ...(fallbacks.length > 0 && { translationFallbacks: fallbacks }) };
}

/**
 * `preferencesUrl` and `unsubscribeUrl` of the walk's subscriber and workflow, signed only when a
 * template reads them (an HMAC per walk would cost every in-app message that never shows a link).
 */
function withLinkVariables(variables: Record<string, unknown>, input: WalkInput, links: LinkSigning): void {
  const { category } = input.workflow;
  const byCategory = unsubscribeScope(input.workflow, input.look?.categories) === 'category';
  const claims = (purpose: LinkPurpose): LinkClaims => ({
    environmentId: input.notification._environmentId,
    subscriberId: input.subscriber.subscriberId,
    purpose,
    workflowId: input.workflow._id,
    ...(purpose === 'unsubscribe' && byCategory && { category }),
    ...(input.notification.tenantId && { tenant: input.notification.tenantId }),
  });
  for (const [name, purpose] of [['preferencesUrl', 'preferences'], ['unsubscribeUrl', 'unsubscribe']] as const) {
    let url: string | undefined;
    Object.defineProperty(variables, name, { enumerable: true, get: () => (url ??= linkUrl(links.baseUrl, purpose, signLink(links.secret, claims(purpose)))) });
  }
}

/** The locale a walk's emails are written in (their `lang`): the walk's, else the environment's default. */
export const emailLocale = (input: Pick<WalkInput, 'subscriber' | 'notification' | 'look'>): string | null => walkLocale(input) ?? input.look?.translations?.defaultLocale ?? null;

/** The variables of an email step and its layout: the walk's, with the environment's partials for `{% render %}`. */
export const emailVariables = (variables: Record<string, unknown>, input: Pick<WalkInput, 'look'>): Record<string, unknown> =>
  input.look?.partials ? { ...variables, [PARTIALS]: input.look.partials } : variables;
