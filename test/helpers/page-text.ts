/** A page's text without its tags, spaces folded and `&#39;` read as `'`: what a reader sees. */
export function pageText(page: string): string {
  return page
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
}
