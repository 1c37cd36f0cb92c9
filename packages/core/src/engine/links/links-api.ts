import { TidingsError, notFound } from '../../errors.js';
import { linkUrl, signLink, verifyLink, type LinkClaims, type LinkPurpose } from '../../links/link-token.js';
import { linkOptionsSchema, type LinkOptions, type LinkScope, type PreferenceOrigin, type Preferences, type PreferencesPatch } from '../../schemas/index.js';
import { unsubscribeScope } from '../../preferences/categories.js';
import { categoriesByKey } from '../categories/category-records.js';
import { parseInput } from '../../validation.js';
import type { EngineContext } from '../context.js';
import type { preferencesApi } from '../preferences/preferences-api.js';
import { linkSecrets, rotateLinkSecret, verifyingSecrets } from './link-secrets.js';

/** A signed link and when it stops working. */
export interface SignedLink {
  readonly url: string;
  readonly token: string;
  readonly expiresAt: string | null;
}

/** What an unsubscribe or a resubscribe did. */
export interface LinkOutcome {
  readonly subscriberId: string;
  readonly workflowId: string | null;
  readonly category: string | null;
  /** False when the subscriber was already where the link takes them (the call is idempotent). */
  readonly changed: boolean;
  readonly preferences: Preferences;
}

const REFUSED: Record<'malformed' | 'signature' | 'expired' | 'environment', string> = {
  malformed: 'the link is not a Tidings link',
  signature: 'the link is not signed by this environment (it was altered, or its secret was rotated)',
  expired: 'the link has expired',
  environment: 'the link is for another environment',
};

/**
 * Signed links to a subscriber's preferences: a link names one subscriber of one environment (and
 * for unsubscribe, one workflow or category), signed with the environment's secret; it can read and
 * change that subscriber's preferences and nothing else.
 */
export function linksApi(ctx: EngineContext, preferences: ReturnType<typeof preferencesApi>) {
  const { storage, env } = ctx;
  const baseUrl = () => {
    const links = ctx.options.links;
    if (!links) throw new TidingsError('validation_failed', 'Links need a public address: createTidings({ links: { baseUrl } })', { issues: [{ path: 'links.baseUrl', message: 'is required to make links' }] });
    return links.baseUrl;
  };

  /** The claims of a valid token of `purpose`; `unauthorized` naming why for any other. */
  async function open(token: string, purpose?: LinkPurpose): Promise<LinkClaims> {
    const secrets = await linkSecrets(storage.records, env, ctx.now());
    const checked = verifyLink(verifyingSecrets(secrets), token, env, ctx.clock.now().getTime());
    if (!checked.ok) throw new TidingsError('unauthorized', REFUSED[checked.reason]);
    if (purpose && checked.claims.purpose !== purpose && !(purpose === 'preferences' && checked.claims.purpose === 'unsubscribe')) throw new TidingsError('unauthorized', `the link is not a ${purpose} link`);
    if (!(await storage.subscribers.getMany(env, [checked.claims.subscriberId]))[0]) throw new TidingsError('unauthorized', 'the link is for a subscriber who no longer exists');
    return checked.claims;
  }

  /** What a link allowed, as the audit trail records it. */
  const scopeOf = (claims: LinkClaims): LinkScope => ({
    purpose: claims.purpose,
    ...(claims.workflowId && { workflowId: claims.workflowId }),
    ...(claims.category && { category: claims.category }),
    ...(claims.tenant && { tenant: claims.tenant }),
    ...(claims.expiresAt !== undefined && { expiresAt: new Date(claims.expiresAt).toISOString() }),
  });

  /**
   * Email of the link's category (when it names one) or workflow on (`true`) or off; `changed` says
   * whether it was not so already (nothing is written then).
   */
  async function setEmail(claims: LinkClaims, on: boolean, origin: PreferenceOrigin): Promise<LinkOutcome> {
    const before = await preferences.get(claims.subscriberId);
    const outcome = (changed: boolean, after: Preferences): LinkOutcome => ({ subscriberId: claims.subscriberId, workflowId: claims.workflowId ?? null, category: claims.category ?? null, changed, preferences: after });
    const options = { origin, scope: scopeOf(claims) };
    if (claims.category) {
      const was = before.categories.find((c) => c.key === claims.category)?.channels.email ?? before.global.channels.email ?? true;
      if (was === on) return outcome(false, before);
      return outcome(true, await preferences.update(claims.subscriberId, { categories: { [claims.category]: { email: on } } }, options));
    }
    if (!claims.workflowId) throw new TidingsError('validation_failed', 'the link names no workflow to unsubscribe from', { issues: [{ path: 'token', message: 'names no workflow' }] });
    const workflow = await storage.workflows.find(env, claims.workflowId);
    if (!workflow) throw new TidingsError('not_found', 'the workflow of the link no longer exists');
    if (workflow.critical) throw new TidingsError('conflict', `"${workflow.name}" is critical: its emails are always sent`);
    const row = before.workflows.find((w) => w.workflow.identifier === workflow.identifier);
    const was = row ? row.channels.email !== false : true;
    if (was === on) return outcome(false, before);
    return outcome(true, await preferences.update(claims.subscriberId, { workflowId: claims.workflowId, channels: { email: on } }, options));
  }

  return {
    /**
     * A signed URL to the subscriber's preference page, or (`purpose: 'unsubscribe'`) to one-click
     * unsubscribe from a workflow's email. Needs `createTidings({ links: { baseUrl } })`.
     */
    async link(subscriberId: string, options: LinkOptions = {}): Promise<SignedLink> {
      const parsed = parseInput(linkOptionsSchema, options, 'link options');
      const base = baseUrl();
      if (!(await storage.subscribers.getMany(env, [subscriberId]))[0]) throw notFound('subscriber', subscriberId);
      let workflowId = parsed.workflowId;
      let category = parsed.category;
      if (workflowId !== undefined) {
        const workflow = await storage.workflows.find(env, workflowId);
        if (!workflow) throw notFound('workflow', workflowId);
        workflowId = workflow._id;
        // An unsubscribe link opts out of what the workflow's emails' List-Unsubscribe would.
        if (parsed.purpose === 'unsubscribe' && category === undefined && unsubscribeScope(workflow, await categoriesByKey(storage.records, env)) === 'category') category = workflow.category;
      }
      const expiresAt = parsed.expiresIn !== undefined ? ctx.clock.now().getTime() + parsed.expiresIn * 1000 : undefined;
      const purpose = parsed.purpose ?? 'preferences';
      const secrets = await linkSecrets(storage.records, env, ctx.now());
      const token = signLink(secrets.current, { environmentId: env, subscriberId, purpose, ...(workflowId && { workflowId }), ...(category && { category }), ...(parsed.tenant && { tenant: parsed.tenant }), ...(expiresAt !== undefined && { expiresAt }) });
      return { url: linkUrl(base, purpose, token), token, expiresAt: expiresAt === undefined ? null : new Date(expiresAt).toISOString() };
    },
    /** A new link secret: every link signed before stops working, unless `keepPrevious` (the one before keeps verifying until the next rotation). */
    rotateLinkSecret: (options: { keepPrevious?: boolean } = {}) => rotateLinkSecret(storage.records, env, ctx.now(), options.keepPrevious ?? false),
    /** The claims of a link, checked (signature, environment, expiry, the subscriber still there); `unauthorized` otherwise. */
    openLink: (token: string, purpose?: LinkPurpose) => open(token, purpose),
    /**
     * One-click unsubscribe (RFC 8058): the email of the link's category (or workflow) off for its
     * subscriber. Idempotent. Recorded with `origin` (default `one-click`) and the link's scope.
     */
    async unsubscribe(token: string, options: { origin?: PreferenceOrigin } = {}): Promise<LinkOutcome> {
      return setEmail(await open(token, 'unsubscribe'), false, options.origin ?? 'one-click');
    },
    /** The way back in from an unsubscribe link: that category's (or workflow's) email on again. */
    async resubscribe(token: string, options: { origin?: PreferenceOrigin } = {}): Promise<LinkOutcome> {
      return setEmail(await open(token, 'unsubscribe'), true, options.origin ?? 'page');
    },
    /** `preferences.update` through a preferences link: recorded with origin `page` and the link's scope. */
    async updateByLink(token: string, patches: readonly PreferencesPatch[]): Promise<Preferences> {
      const claims = await open(token, 'preferences');
      return preferences.updateMany(claims.subscriberId, patches, { origin: 'page', scope: scopeOf(claims) });
    },
  };
}

/** The preferences API with its signed links (`link`, `unsubscribe`, …): one group, as callers look for it. */
export const withLinks = <P extends ReturnType<typeof preferencesApi>>(ctx: EngineContext, preferences: P) => ({ ...preferences, ...linksApi(ctx, preferences) });
