/** `Welcome Email!` → `welcome-email`, as Novu slugifies names; `fallback` when nothing is left. */
export function slugify(text: string, fallback = 'workflow'): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || fallback;
}
