/// <reference lib="dom" />
// Where the page is, kept in the URL's hash so views can be linked to and reloaded:
//   #/?subscriber=ada&status=error   the notifications, filtered
//   #/tx/<transactionId>             one notification and its recipients
//   #/tx/<transactionId>/<subscriber> one subscriber's run, step by step
//   #/pending                        pending jobs and open digests
//   #/workflow/<workflow>            a workflow's revisions, each with its diff

export interface Filters {
  readonly workflow?: string;
  readonly subscriber?: string;
  readonly transaction?: string;
  readonly channel?: string;
  readonly status?: string;
  /** `datetime-local` values (the browser's zone). */
  readonly after?: string;
  readonly before?: string;
}

export const FILTER_KEYS = ['workflow', 'subscriber', 'transaction', 'channel', 'status', 'after', 'before'] as const;

export type Route =
  | { readonly view: 'list'; readonly filters: Filters; readonly page: number }
  | { readonly view: 'transaction'; readonly transactionId: string }
  | { readonly view: 'run'; readonly transactionId: string; readonly subscriberId: string }
  | { readonly view: 'pending' }
  | { readonly view: 'workflow'; readonly workflowId: string };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter((p) => p !== '').map(decodeURIComponent);
  if (parts[0] === 'tx' && parts[1] !== undefined) return parts[2] !== undefined ? { view: 'run', transactionId: parts[1], subscriberId: parts[2] } : { view: 'transaction', transactionId: parts[1] };
  if (parts[0] === 'pending') return { view: 'pending' };
  if (parts[0] === 'workflow' && parts[1] !== undefined) return { view: 'workflow', workflowId: parts[1] };
  const params = new URLSearchParams(query);
  const filters: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key);
    if (value) filters[key] = value;
  }
  return { view: 'list', filters, page: Math.max(0, Number.parseInt(params.get('page') ?? '0', 10) || 0) };
}

export function href(route: Route): string {
  const enc = encodeURIComponent;
  switch (route.view) {
    case 'transaction':
      return `#/tx/${enc(route.transactionId)}`;
    case 'run':
      return `#/tx/${enc(route.transactionId)}/${enc(route.subscriberId)}`;
    case 'pending':
      return '#/pending';
    case 'workflow':
      return `#/workflow/${enc(route.workflowId)}`;
    case 'list': {
      const q = new URLSearchParams();
      for (const key of FILTER_KEYS) if (route.filters[key]) q.set(key, route.filters[key]!);
      if (route.page > 0) q.set('page', String(route.page));
      const text = q.toString();
      return text === '' ? '#/' : `#/?${text}`;
    }
  }
}

export const listOf = (filters: Filters, page = 0): string => href({ view: 'list', filters, page });
export const runOf = (transactionId: string, subscriberId: string): string => href({ view: 'run', transactionId, subscriberId });
export const transactionOf = (transactionId: string): string => href({ view: 'transaction', transactionId });
export const workflowOf = (workflowId: string): string => href({ view: 'workflow', workflowId });
