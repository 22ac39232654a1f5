// Side effect only: the Symbol.metadata fallback (util/class-metadata.ts) is defined before any
// class is decorated. Entry points and decorator modules import this file for that.
import '../util/class-metadata.js';
