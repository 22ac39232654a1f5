import { NONCE_PLACEHOLDER, PAGE_HTML } from './page/page-html.generated.js';

/**
 * The page, with this server's CSP nonce on its one script and one style. It is made from
 * src/viewer/page/ (index.html, viewer.css, viewer.ts) by page/build-page.ts (decision 0048).
 */
export function viewerPage(nonce: string): string {
  return PAGE_HTML.replaceAll(NONCE_PLACEHOLDER, nonce);
}
