import { NONCE_PLACEHOLDER, PAGE_HTML } from './page/page-html.generated.js';
import { TOKEN_META } from './signal-names.js';

/**
 * The page, with this server's CSP nonce on its one script and one style. It is made from
 * src/viewer/page/ (index.html, viewer.css, viewer.ts) by page/build-page.ts (decision 0048).
 * With `signalToken` (a viewer started with `allowSignals`) the page carries it, for its signal
 * requests: only a page this server served knows it.
 */
export function viewerPage(nonce: string, signalToken?: string): string {
  const page = PAGE_HTML.replaceAll(NONCE_PLACEHOLDER, nonce);
  if (signalToken === undefined) return page;
  // The token is base64url: nothing in it needs escaping in an attribute.
  return page.replace('<head>', () => `<head>\n<meta name="${TOKEN_META}" content="${signalToken}">`);
}
