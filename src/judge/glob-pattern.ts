/** True when `pattern` uses glob syntax rather than being a plain name fragment. */
export function isGlob(pattern: string): boolean {
  return /[*?[{]/.test(pattern);
}

/**
 * Turns a glob into an anchored RegExp over `/`-separated paths: `**` spans directories, `*` and
 * `?` stay within one segment, `[...]` (with `!` or `^` negation) is a character class, and
 * `{a,b}` is an alternation. Everything else matches literally.
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] ?? '';
    if (char === '*') {
      if (glob[i + 1] === '*') {
        const slashFollows = glob[i + 2] === '/';
        source += slashFollows ? '(?:.*/)?' : '.*';
        i += slashFollows ? 2 : 1;
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else if (char === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        source += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else if (char === '{') {
      braceDepth += 1;
      source += '(?:';
    } else if (char === '}' && braceDepth > 0) {
      braceDepth -= 1;
      source += ')';
    } else if (char === ',' && braceDepth > 0) source += '|';
    else source += char.replace(/[.+^$()|\\{}\]]/g, '\\$&');
  }
  // An unclosed brace would leave an open group; close it so the RegExp stays valid.
  source += ')'.repeat(braceDepth);
  return new RegExp(`^${source}$`);
}
