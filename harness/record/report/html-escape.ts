const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Text for HTML element content or a double-quoted attribute. */
export const escapeHtml = (text: string | number): string =>
  String(text).replace(/[&<>"]/g, (c) => ENTITIES[c] ?? c);
