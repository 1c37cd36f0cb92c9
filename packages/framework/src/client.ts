import { type CodeWorkflow } from '@tidings/core';
import { isCodeWorkflow } from '@tidings/core/internal';
import { novuWorkflows, type NovuWorkflow } from './novu-workflows.js';

/** Where @novu/framework's `Client` writes its logs; the `Client` here writes none, but keeps the one given. */
export interface ClientLogger {
  info: (...args: unknown[]) => void;
  warn: (...args: unknown[]) => void;
  error: (...args: unknown[]) => void;
}

/** `@novu/framework`'s `Client` options (2.13), accepted so a bridge file's `new Client({ … })` keeps working. */
export interface ClientOptions {
  /**
   * Novu: the API the bridge registers with. Kept on `client.apiUrl`; nothing is sent to it.
   * @default process.env.NOVU_API_URL, else "https://api.novu.co"
   */
  apiUrl?: string | undefined;
  /**
   * Novu: the key that signs bridge requests (HMAC). Kept on `client.secretKey`; there are no bridge
   * requests to check in process.
   * @default process.env.NOVU_SECRET_KEY, else process.env.NOVU_API_KEY, else ""
   */
  secretKey?: string | undefined;
  /**
   * Novu: whether bridge requests must carry a valid HMAC signature. Kept on the client; nothing is
   * served, so nothing is checked.
   * @default process.env.NOVU_STRICT_AUTHENTICATION_ENABLED === "true" when set, else false when NODE_ENV is unset, "development" or "dev", else true
   */
  strictAuthentication?: boolean | undefined;
  /**
   * Novu: log discovery and executions. Kept on the client; it logs nothing (see the engine's own logs).
   * @default true when NODE_ENV is unset, "development" or "dev"
   */
  verbose?: boolean | undefined;
  /** Novu: where its logs go. Kept on the client. @default console */
  logger?: ClientLogger | undefined;
}

/** A workflow's id and steps, as `client.discover()` lists them (Novu's `DiscoverOutput`, its ids and step types only). */
export interface DiscoveredWorkflow {
  workflowId: string;
  steps: { stepId: string; type: string }[];
}

const inDevelopment = () => [undefined, 'development', 'dev'].includes(process.env['NODE_ENV']);

/**
 * `@novu/framework`'s `Client`, for a workflow file ported with its import line: it takes Novu's
 * options and keeps them, and keeps the workflows `addWorkflows` is given (the first of an id, as
 * Novu does) for `discover()` and `healthCheck()`. It serves nothing: Tidings runs workflows in
 * process, so there is no bridge endpoint, no HMAC check and no request to Novu's API. Run workflows
 * with `createTidings({ workflows })` (or `tidings serve --workflows`, which skips a `Client` export).
 */
export class Client {
  /** The key given, or `NOVU_SECRET_KEY` / `NOVU_API_KEY`; never sent anywhere by the client. */
  readonly secretKey: string;
  readonly apiUrl: string;
  readonly strictAuthentication: boolean;
  readonly verbose: boolean;
  readonly logger: ClientLogger;
  /** @novu/framework's version whose `Client` this stands for. */
  readonly version = '2.13';
  readonly #workflows = new Map<string, { workflow: CodeWorkflow; steps: DiscoveredWorkflow['steps'] }>();

  constructor(options: ClientOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new TypeError('new Client(options): options must be an object');
    const strictFromEnv = process.env['NOVU_STRICT_AUTHENTICATION_ENABLED'];
    this.apiUrl = options.apiUrl || process.env['NOVU_API_URL'] || 'https://api.novu.co';
    this.secretKey = options.secretKey || process.env['NOVU_SECRET_KEY'] || process.env['NOVU_API_KEY'] || '';
    this.strictAuthentication = options.strictAuthentication ?? (strictFromEnv !== undefined ? strictFromEnv === 'true' : !inDevelopment());
    this.verbose = options.verbose ?? inDevelopment();
    this.logger = options.logger ?? console;
  }

  /**
   * Keeps the workflows (made by `workflow()` of this package or of `@novu/framework`), discovering
   * each; one whose id is already kept is passed over, as in Novu. Rejects naming the workflow whose
   * discovery failed, keeping those before it.
   */
  async addWorkflows(workflows: readonly (CodeWorkflow | NovuWorkflow)[]): Promise<void> {
    for (const [i, item] of workflows.entries()) {
      const workflow = isCodeWorkflow(item) ? item : typeof item === 'object' && item !== null ? novuWorkflows([item as NovuWorkflow])[0]! : undefined;
      if (!workflow) throw new TypeError(`client.addWorkflows(workflows): workflows[${i}] is not a workflow`);
      if (this.#workflows.has(workflow.id)) continue;
      const steps = (await workflow.discover()).map(({ stepId, type }) => ({ stepId, type }));
      if (!this.#workflows.has(workflow.id)) this.#workflows.set(workflow.id, { workflow, steps });
    }
  }

  /** The workflows kept, in the order added: what to hand `createTidings({ workflows })` (Tidings only). */
  get workflows(): CodeWorkflow[] {
    return [...this.#workflows.values()].map((w) => w.workflow);
  }

  /** The workflows kept, each with its steps (ids and types). */
  discover(): { workflows: DiscoveredWorkflow[] } {
    return { workflows: [...this.#workflows.entries()].map(([workflowId, { steps }]) => ({ workflowId, steps: steps.map((s) => ({ ...s })) })) };
  }

  /** Novu's health answer, counting the workflows kept and their steps. */
  healthCheck(): { status: 'ok'; sdkVersion: string; frameworkVersion: string; discovered: { workflows: number; steps: number } } {
    const kept = [...this.#workflows.values()];
    return { status: 'ok', sdkVersion: this.version, frameworkVersion: '2024-06-26', discovered: { workflows: kept.length, steps: kept.reduce((n, w) => n + w.steps.length, 0) } };
  }

  /** Not in process: the engine executes workflows. Always throws, saying so. */
  executeWorkflow(_event: unknown): Promise<never> {
    return Promise.reject(new Error('client.executeWorkflow(): Tidings runs workflows in process: pass them to createTidings({ workflows }) and trigger them there (there is no bridge to execute through)'));
  }
}
